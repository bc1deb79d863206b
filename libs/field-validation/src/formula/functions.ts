import { FORMULA_LIMITS } from './limits';

interface Arity {
  readonly minArgs: number;
  readonly maxArgs: number;
}

const VARIADIC = FORMULA_LIMITS.maxFunctionArguments;

/** The built-in functions and how many arguments each takes (checked when parsing). */
export const FORMULA_FUNCTIONS = {
  AND: { minArgs: 1, maxArgs: VARIADIC },
  OR: { minArgs: 1, maxArgs: VARIADIC },
  NOT: { minArgs: 1, maxArgs: 1 },
  IF: { minArgs: 3, maxArgs: 3 },
  ROUND: { minArgs: 1, maxArgs: 2 },
  ABS: { minArgs: 1, maxArgs: 1 },
  MIN: { minArgs: 1, maxArgs: VARIADIC },
  MAX: { minArgs: 1, maxArgs: VARIADIC },
  CONCAT: { minArgs: 1, maxArgs: VARIADIC },
  UPPER: { minArgs: 1, maxArgs: 1 },
  LOWER: { minArgs: 1, maxArgs: 1 },
  LEN: { minArgs: 1, maxArgs: 1 },
} as const satisfies Record<string, Arity>;

export type FormulaFunctionName = keyof typeof FORMULA_FUNCTIONS;

/** Case-insensitive lookup; undefined for unknown names. */
export function lookupFunction(name: string): FormulaFunctionName | undefined {
  const upper = name.toUpperCase();
  return Object.hasOwn(FORMULA_FUNCTIONS, upper) ? (upper as FormulaFunctionName) : undefined;
}

export function describeArity(name: FormulaFunctionName): string {
  const { minArgs, maxArgs } = FORMULA_FUNCTIONS[name];
  if (minArgs === maxArgs) return `exactly ${minArgs} argument${minArgs === 1 ? '' : 's'}`;
  if (maxArgs === VARIADIC) return `at least ${minArgs} argument${minArgs === 1 ? '' : 's'}`;
  return `${minArgs} to ${maxArgs} arguments`;
}
