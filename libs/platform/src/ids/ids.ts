import { v7 as uuidv7, validate as isUuid } from 'uuid';

/** Time-ordered ids keep btree indexes compact and make keyset pagination cheap. */
export function newId(): string {
  return uuidv7();
}

export function isUuidString(value: unknown): value is string {
  return typeof value === 'string' && isUuid(value);
}
