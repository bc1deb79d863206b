export type PrincipalKind = 'HUMAN' | 'SERVICE';

export type Credential =
  | {
      type: 'session';
      /**
       * The session's address, lowercased, when the identity provider vouches for it; what invites
       * bind to. Absent when the provider says it is unverified.
       */
      verifiedEmail?: string;
    }
  | {
      type: 'api-key';
      apiKeyId: string;
      name: string;
      prefix: string;
      fullAccess: boolean;
      allowlist: readonly string[];
      expiresAt: Date | null;
    }
  | { type: 'system'; task: string }
  /** An automation run acting as the automation's owner, with the owner's live permissions. */
  | { type: 'automation'; automationId: string; runId: string };

/**
 * Who is calling, resolved afresh for every call from live rows: never cached across
 * requests, so a revocation, a lost role or a disabled user takes effect on the next call.
 */
export interface Principal {
  userId: string;
  kind: PrincipalKind;
  email: string;
  displayName: string;
  /**
   * Only a session can act as platform admin, by the verified address of its claims; an API key
   * never does, whoever owns it.
   */
  isPlatformAdmin: boolean;
  organizationId: string | null;
  /** Role ids held in `organizationId` (row-level access is granted to roles). */
  roleIds: readonly string[];
  /** Effective permissions in `organizationId`, already intersected with a limited key's allowlist. */
  permissions: ReadonlySet<string>;
  credential: Credential;
}
