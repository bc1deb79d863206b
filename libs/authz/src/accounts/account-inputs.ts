import { Type } from '@sinclair/typebox';

/**
 * The input schemas of `me.get` and `me.identity`. Their static types are the inputs of authz's
 * contracts (decision 155): this file imports nothing server-side.
 */

/** `me.get` */
export const MeGetInput = Type.Object({}, { additionalProperties: false });

/** `me.identity` */
export const MeIdentityInput = Type.Object({}, { additionalProperties: false });
