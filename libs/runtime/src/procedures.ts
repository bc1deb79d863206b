import type { AnyProcedure } from '@mrp/platform';
import type { RuntimeServices } from './runtime';

/** Every procedure of every lib; the /rpc door serves all of them, /api/v1 a curated subset. */
export function allProcedures(_services: RuntimeServices): AnyProcedure[] {
  return [];
}
