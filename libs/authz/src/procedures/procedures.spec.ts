import type { SignatureDrift, SignaturesOf } from '@mrp/platform';
import type { meIdentityProcedure } from '../accounts/me-identity-procedure';
import type { apiKeyProcedures } from '../api-keys/api-key-procedures';
import type { AuthzProcedures } from '../contracts';
import type { createServiceAccountProcedures } from '../service-accounts/create-service-account-procedures';
import type { createAuthzProcedures } from './authz-procedures';

/**
 * Type-level: authz's contracts map (what callers by name are typed with) says what the
 * procedures declare. This file fails the typecheck, not a test run, when they drift.
 */
type AuthzProcedure =
  | ReturnType<typeof createAuthzProcedures>[number]
  | typeof meIdentityProcedure
  | (typeof apiKeyProcedures)[number]
  | ReturnType<typeof createServiceAccountProcedures>[number];
type Served = Omit<SignaturesOf<AuthzProcedure>, 'featureFlags.set'>;
type Drift = SignatureDrift<Served, AuthzProcedures>;

const noDrift: [Drift] extends [never] ? true : Drift = true;

// A contract that restates an input by hand and gets it wrong is named.
type WrongInput = Omit<AuthzProcedures, 'apiKeys.revoke'> & { 'apiKeys.revoke': { input: { id: number }; output: AuthzProcedures['apiKeys.revoke']['output'] } };
const wrongInputNamed: SignatureDrift<Served, WrongInput> = 'apiKeys.revoke';
// An answer the contract does not cover is named.
type WrongOutput = Omit<AuthzProcedures, 'me.get'> & { 'me.get': { input: AuthzProcedures['me.get']['input']; output: { user: null } } };
const wrongOutputNamed: SignatureDrift<Served, WrongOutput> = 'me.get';
// A procedure the contract forgets is named.
const missingNamed: SignatureDrift<Served, Omit<AuthzProcedures, 'serviceAccounts.enable'>> = 'serviceAccounts.enable';

describe("authz's contracts map", () => {
  it('matches the procedures (checked by the typecheck)', () => {
    expect([noDrift, wrongInputNamed, wrongOutputNamed, missingNamed]).toEqual([true, 'apiKeys.revoke', 'me.get', 'serviceAccounts.enable']);
  });
});
