import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { conflict } from '@mrp/platform';

export { sqlTextArray, toIso } from '@mrp/platform';

/** Turns the unique-index violation a concurrent writer can still cause into a clean 409. */
export function rethrowUniqueViolation(error: unknown, message: string): never {
  if (error instanceof UniqueConstraintViolationException) throw conflict(message);
  throw error;
}
