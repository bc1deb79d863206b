import type { SignatureDrift, SignaturesOf } from '@mrp/platform';
import type { NotificationsProcedures } from './contracts';
import type { createSendEmailProcedure } from './email/email-jobs';
import type { createNotificationProcedures } from './inbox/inbox-procedures';
import type { createSendNotificationProcedure } from './sending/send-procedure';

/**
 * Type-level: the notifications lib's contracts map (what callers by name are typed with) says
 * what the procedures declare. This file fails the typecheck, not a test run, when they drift.
 */
type NotificationsProcedure =
  | ReturnType<typeof createNotificationProcedures>[number]
  | ReturnType<typeof createSendNotificationProcedure>
  | ReturnType<typeof createSendEmailProcedure>;
type Served = SignaturesOf<NotificationsProcedure>;
type Drift = SignatureDrift<Served, NotificationsProcedures>;

const noDrift: [Drift] extends [never] ? true : Drift = true;

// A contract that restates an input by hand and gets it wrong is named.
type WrongInput = Omit<NotificationsProcedures, 'notifications.markRead'> & {
  'notifications.markRead': { input: { ids: number[] }; output: NotificationsProcedures['notifications.markRead']['output'] };
};
const wrongInputNamed: SignatureDrift<Served, WrongInput> = 'notifications.markRead';
// An answer the contract does not cover is named.
type WrongOutput = Omit<NotificationsProcedures, 'notifications.send'> & {
  'notifications.send': { input: NotificationsProcedures['notifications.send']['input']; output: { notified: string } };
};
const wrongOutputNamed: SignatureDrift<Served, WrongOutput> = 'notifications.send';
// A procedure the contract forgets is named.
const missingNamed: SignatureDrift<Served, Omit<NotificationsProcedures, 'notifications.list'>> = 'notifications.list';

describe("the notifications lib's contracts map", () => {
  it('matches the procedures (checked by the typecheck)', () => {
    expect([noDrift, wrongInputNamed, wrongOutputNamed, missingNamed]).toEqual([true, 'notifications.markRead', 'notifications.send', 'notifications.list']);
  });
});
