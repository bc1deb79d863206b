import { forbidden, type Principal } from '@mrp/platform';

/** The permissions of `wanted` the principal does not hold itself, sorted. */
export function permissionsBeyond(principal: Principal, wanted: Iterable<string>): string[] {
  return [...new Set(wanted)].filter((permission) => !principal.permissions.has(permission)).sort();
}

/**
 * Nobody hands out (or takes away) authority they do not hold: granting a role, creating or
 * changing one, or inviting with one is refused when it carries a permission outside the
 * caller's current permissions, so an admin cannot mint an owner.
 */
export function assertWithinGrantCeiling(principal: Principal, wanted: Iterable<string>, action: string): void {
  const beyond = permissionsBeyond(principal, wanted);
  if (beyond.length > 0) {
    throw forbidden(`You cannot ${action} permissions you do not hold: ${beyond.join(', ')}`);
  }
}
