import { Type } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, conflict, defineProcedure, isUuidString, notFound, unauthorized, type JobQueue } from '@mrp/platform';
import { assertStorableJson } from '../definitions/storable-json';
import { enqueueRuns } from '../runs/run-queue';
import { assertHookNotLocked, recordHookFailure } from './hook-failures';
import { hookSecretMatches } from './hook-secret';

/** What the hook's principal (`system:automation-hook`) holds. */
export const TRIGGER_AUTOMATION_HOOKS = 'system.automation-hook';

/**
 * `automations.hooks.enqueue`: queues the run of an http automation whose caller proved the
 * secret. The automation is read again under lock: one disabled or re-typed meanwhile is refused.
 */
export const enqueueHookRun = (jobs: JobQueue) => defineProcedure({
  name: 'automations.hooks.enqueue',
  summary: 'Queues the run of an http automation',
  scope: 'system',
  permission: TRIGGER_AUTOMATION_HOOKS,
  input: Type.Object(
    { automationId: Type.String({ format: 'uuid' }), input: Type.Object({}, { additionalProperties: true }), clientAddress: Type.String({ maxLength: 100 }) },
    { additionalProperties: false },
  ),
  output: Type.Object({ runId: Type.String({ format: 'uuid' }) }),
  async handler(ctx, input) {
    const [automation] = await ctx.em.execute<Array<{ organization_id: string; enabled: boolean; trigger_type: string }>>(
      'SELECT organization_id, enabled, trigger_type FROM automations WHERE id = ? FOR SHARE',
      [input.automationId],
    );
    if (!automation || automation.trigger_type !== 'http') throw notFound('Automation');
    if (!automation.enabled) throw conflict('The automation is disabled');
    const [runId] = await enqueueRuns(jobs, ctx.em, [
      { automationId: input.automationId, organizationId: automation.organization_id, trigger: 'http', input: input.input, triggeredBy: `hook:${input.clientAddress}` },
    ]);
    // The automation was deleted meanwhile.
    if (!runId) throw notFound('Automation');
    return { runId };
  },
});

export interface HookCall {
  automationId: string;
  /** The bearer value presented, or null. */
  secret: string | null;
  clientAddress: string;
  /** Reads the JSON body; the door's reader enforces size and media type. */
  readBody(): Promise<unknown>;
  /** Runs `automations.hooks.enqueue` as the hook's system principal. */
  enqueue(input: { automationId: string; input: Record<string, unknown>; clientAddress: string }): Promise<{ runId: string }>;
}

/**
 * `POST /hooks/automation/:id`, in the order that tells an unauthenticated caller least: unknown
 * or non-http automation 404; a wrong or missing secret 429 while its address or the automation has
 * had too many this minute, else 401 (counted); disabled 409; then the body (413 over 1 MiB, 400
 * unless a JSON object; none at all is `{}`) becomes the run's input.
 *
 * The right secret is never locked out: only failures are slowed, so strangers spending their
 * guesses on an id cannot stop its owner's automation. Guessing stays pointless (256 random bits),
 * and the comparison, of SHA-256 digests, takes the same time wherever a guess differs.
 */
export async function triggerHook(em: EntityManager, call: HookCall): Promise<{ runId: string }> {
  if (!isUuidString(call.automationId)) throw notFound('Automation');
  const [automation] = await em.execute<Array<{ enabled: boolean; trigger_type: string; hook_secret_hash: string | null }>>(
    'SELECT enabled, trigger_type, hook_secret_hash FROM automations WHERE id = ?',
    [call.automationId],
  );
  if (!automation || automation.trigger_type !== 'http' || !automation.hook_secret_hash) throw notFound('Automation');
  if (call.secret === null || !hookSecretMatches(call.secret, automation.hook_secret_hash)) {
    await assertHookNotLocked(em, call.automationId, call.clientAddress);
    await recordHookFailure(em, call.automationId, call.clientAddress);
    throw unauthorized('Invalid automation secret');
  }
  if (!automation.enabled) throw conflict('The automation is disabled');
  // No body at all is an empty input: a bare POST is a fine way to start a run.
  const read = await call.readBody();
  const body = read === undefined ? {} : read;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('bad_request', 'The body must be a JSON object');
  }
  assertStorableJson(body, 'body');
  return call.enqueue({ automationId: call.automationId, input: body as Record<string, unknown>, clientAddress: call.clientAddress });
}
