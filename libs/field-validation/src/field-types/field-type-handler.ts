import type { ConfigOf, ConfigSchema } from '../config/config-schema';
import { parseConfigObject } from '../config/config-schema';
import type { JsonSchema } from '../core/json-schema';
import type { Result } from '../core/result';
import type { FilterOp } from '../filter/op-sets';
import type { OperandRules } from '../filter/operand-rules';

/**
 * What a value of a field is to compare, sort and index it, and to offer an input for: text,
 * number, boolean, date (a calendar day), datetime, list (compared by containment) or object
 * (not compared at all). One declaration per field type, in its handler.
 */
export type ValueKind = 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'list' | 'object';

/** Everything the library knows about one field type. */
export interface FieldTypeHandler<C extends Record<string, unknown>> {
  /** Validates a configuration (`undefined`/`null` mean "all defaults") and fills in defaults. */
  parseConfig(config: unknown): Result<C>;
  /** Validates a non-empty value against an already parsed configuration and returns it normalised. */
  validateValue(value: unknown, config: C, path: string): Result<unknown>;
  /**
   * Whether a value other than null also means "no value" for this type: `""` for free text, `[]`
   * for lists. Absent: only null does.
   */
  isEmpty?(value: unknown, config: C): boolean;
  /**
   * The JSON Schema of a non-empty value under an already parsed configuration: what
   * `validateValue` accepts, as far as JSON Schema can say it (rules it cannot, such as a real
   * calendar date or allowed HTML, are left to the validator).
   */
  valueSchema(config: C): JsonSchema;
  /**
   * The kind of this type's values under a stored configuration (read as stored: it was checked
   * when the field was saved), e.g. a RELATION's is a list when `multiple`.
   */
  valueKind(config: Readonly<Record<string, unknown>>): ValueKind;
  /**
   * How a filter condition on a field of this type checks its operands, under an already parsed
   * configuration: a number, one of a select's options, a record id, a fragment of text...
   */
  filterOperands(config: C): OperandRules;
  /** The filter operators a field of this type allows under a stored configuration (a multiple RELATION's are a list's). */
  filterOps(config: Readonly<Record<string, unknown>>): readonly FilterOp[];
  /** Every operator `filterOps` may answer, whatever the configuration. */
  filterOpsOfAnyConfig: readonly FilterOp[];
  /** Computed by the server, never written by clients (FORMULA). */
  computed?: true;
}

/** The empty form of free text. */
export const isEmptyText = (value: unknown): boolean => value === '';

/** The empty form of a list. */
export const isEmptyList = (value: unknown): boolean => Array.isArray(value) && value.length === 0;

/** Errors of field configurations are reported below this path, e.g. `config.maxLength`. */
export const CONFIG_PATH = 'config';

/**
 * Builds `parseConfig` from a schema plus an optional cross-property check
 * (e.g. `min <= max`) that runs once every property is individually valid.
 */
export function configParser<S extends ConfigSchema, C extends Record<string, unknown> = ConfigOf<S>>(
  schema: S,
  refine?: (config: ConfigOf<S>) => Result<C>,
): (config: unknown) => Result<C> {
  return (config) => {
    const parsed = parseConfigObject(config ?? {}, schema, CONFIG_PATH);
    if (!parsed.ok) return parsed;
    // Without a refine step C defaults to ConfigOf<S>, so the value already has the declared type.
    return refine ? refine(parsed.value) : (parsed as Result<C>);
  };
}
