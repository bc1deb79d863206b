import { Type } from '@sinclair/typebox';
import { ActionsInput, DEFAULT_MAX_RUNS_PER_MINUTE, MAX_RUNS_PER_MINUTE, RUN_STATUSES, TriggerInput, type RunStatus } from './automation-schemas';

/**
 * The input schemas of the `automations.*` procedures a door serves (`automations.runs.*`
 * included). Their static types are the inputs of the automations lib's contracts (decision 155):
 * this file imports nothing server-side.
 */

const MAX_PAGE_SIZE = 100;

const AutomationId = Type.String({ format: 'uuid', description: 'The automation id' });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'A label for people' });
const MaxRunsPerMinute = Type.Integer({
  minimum: 1,
  maximum: MAX_RUNS_PER_MINUTE,
  description: `Runs a minute at most (a token bucket); more are recorded as skipped. Default ${DEFAULT_MAX_RUNS_PER_MINUTE}`,
});

/** `automations.list` */
export const AutomationsListInput = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 50 })),
    cursor: Type.Optional(Type.String({ format: 'uuid', description: 'nextCursor of the previous page' })),
  },
  { additionalProperties: false },
);

/** `automations.get`, `automations.rotateSecret`, `automations.delete` */
export const AutomationByIdInput = Type.Object({ id: AutomationId }, { additionalProperties: false });

/** `automations.create` */
export const AutomationsCreateInput = Type.Object(
  {
    name: Name,
    enabled: Type.Optional(Type.Boolean({ default: true })),
    ownerId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'You (the default) or a service account of the organization' })),
    trigger: TriggerInput,
    actions: ActionsInput,
    maxRunsPerMinute: Type.Optional(MaxRunsPerMinute),
  },
  { additionalProperties: false },
);

/** `automations.update` */
export const AutomationsUpdateInput = Type.Object(
  {
    id: AutomationId,
    name: Type.Optional(Name),
    enabled: Type.Optional(Type.Boolean()),
    ownerId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    trigger: Type.Optional(TriggerInput),
    actions: Type.Optional(ActionsInput),
    maxRunsPerMinute: Type.Optional(MaxRunsPerMinute),
  },
  { additionalProperties: false },
);

/** `automations.run` */
export const AutomationsRunInput = Type.Object(
  { id: AutomationId, input: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The run input' })) },
  { additionalProperties: false },
);

/** `automations.runs.list` */
export const RunsListInput = Type.Object(
  {
    automationId: Type.Optional(Type.String({ format: 'uuid' })),
    status: Type.Optional(Type.Unsafe<RunStatus>({ type: 'string', enum: [...RUN_STATUSES] })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 25 })),
    cursor: Type.Optional(Type.String({ format: 'uuid', description: 'nextCursor of the previous page' })),
  },
  { additionalProperties: false },
);

/** `automations.runs.get` */
export const RunsGetInput = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
