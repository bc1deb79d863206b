import type { FieldType } from './field-types';
import { isFieldType } from './field-types';
import { isPlainObject } from './plain-object';

/** Field keys are short snake_case identifiers; they double as JSON property names in records. */
export const FIELD_KEY_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

/** Every model has this reserved, always-required TEXT field. */
export const TITLE_FIELD_KEY = 'title';

export interface FieldDefinition {
  key: string;
  type: FieldType;
  config: Record<string, unknown>;
  required: boolean;
  /** Set once the field is archived; archived fields are invisible to reads, writes, filters and formulas. */
  archivedAt?: string | Date | null;
}

/** The definition used for `title` when a model's field list does not spell it out. */
export const TITLE_FIELD: Readonly<FieldDefinition> = Object.freeze({
  key: TITLE_FIELD_KEY,
  type: 'TEXT',
  config: Object.freeze({}) as Record<string, unknown>,
  required: true,
});

export function isArchived(field: FieldDefinition): boolean {
  return field.archivedAt !== undefined && field.archivedAt !== null;
}

/** Structural check used to skip malformed definitions instead of crashing on them. */
export function isWellFormedDefinition(candidate: unknown): candidate is FieldDefinition {
  return (
    isPlainObject(candidate) &&
    typeof candidate['key'] === 'string' &&
    FIELD_KEY_PATTERN.test(candidate['key']) &&
    isFieldType(candidate['type'])
  );
}

export interface ModelFields {
  /** Non-archived fields by key, always including `title` (which is forced to be required). */
  readonly visible: ReadonlyMap<string, FieldDefinition>;
  /** Keys of archived fields that have no visible field with the same key. */
  readonly archived: ReadonlySet<string>;
}

/**
 * Indexes a model's field list. Malformed entries are ignored, the first definition of a key wins,
 * and the reserved `title` field is added when missing.
 */
export function indexModelFields(fields: unknown): ModelFields {
  const visible = new Map<string, FieldDefinition>();
  const archived = new Set<string>();
  const definitions: unknown[] = Array.isArray(fields) ? fields : [];
  for (const candidate of definitions) {
    if (!isWellFormedDefinition(candidate)) continue;
    if (isArchived(candidate)) {
      archived.add(candidate.key);
    } else if (!visible.has(candidate.key)) {
      visible.set(
        candidate.key,
        candidate.key === TITLE_FIELD_KEY && !candidate.required ? { ...candidate, required: true } : candidate,
      );
    }
  }
  if (!visible.has(TITLE_FIELD_KEY)) {
    visible.set(TITLE_FIELD_KEY, TITLE_FIELD);
  }
  for (const key of visible.keys()) archived.delete(key);
  return { visible, archived };
}
