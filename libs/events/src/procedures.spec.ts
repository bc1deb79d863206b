import type { SignatureDrift, SignaturesOf } from '@mrp/platform';
import type { listEventTypes } from './catalog/event-type-procedures';
import type { EventsProcedures } from './contracts';
import type { createDeliveryLogProcedures } from './webhooks/deliveries/delivery-log-procedures';
import type { pruneWebhookDeliveries } from './webhooks/deliveries/prune-deliveries';
import type { createRecordAttemptsProcedure } from './webhooks/deliveries/record-attempts';
import type { createEndpointProcedures } from './webhooks/endpoints/endpoint-procedures';

/**
 * Type-level: the events lib's contracts map (what callers by name are typed with) says what the
 * procedures declare. This file fails the typecheck, not a test run, when they drift.
 */
type EventsProcedure =
  | typeof listEventTypes
  | ReturnType<typeof createEndpointProcedures>[number]
  | ReturnType<typeof createDeliveryLogProcedures>[number]
  | ReturnType<typeof createRecordAttemptsProcedure>
  | typeof pruneWebhookDeliveries;
type Served = SignaturesOf<EventsProcedure>;
type Drift = SignatureDrift<Served, EventsProcedures>;

const noDrift: [Drift] extends [never] ? true : Drift = true;

// A contract that restates an input by hand and gets it wrong is named.
type WrongInput = Omit<EventsProcedures, 'webhooks.deliveries.get'> & {
  'webhooks.deliveries.get': { input: { id: number }; output: EventsProcedures['webhooks.deliveries.get']['output'] };
};
const wrongInputNamed: SignatureDrift<Served, WrongInput> = 'webhooks.deliveries.get';
// An answer the contract does not cover is named.
type WrongOutput = Omit<EventsProcedures, 'webhooks.endpoints.list'> & {
  'webhooks.endpoints.list': { input: EventsProcedures['webhooks.endpoints.list']['input']; output: { items: number[] } };
};
const wrongOutputNamed: SignatureDrift<Served, WrongOutput> = 'webhooks.endpoints.list';
// A procedure the contract forgets is named.
const missingNamed: SignatureDrift<Served, Omit<EventsProcedures, 'webhooks.endpoints.recover'>> = 'webhooks.endpoints.recover';

describe("the events lib's contracts map", () => {
  it('matches the procedures (checked by the typecheck)', () => {
    expect([noDrift, wrongInputNamed, wrongOutputNamed, missingNamed]).toEqual([
      true,
      'webhooks.deliveries.get',
      'webhooks.endpoints.list',
      'webhooks.endpoints.recover',
    ]);
  });
});
