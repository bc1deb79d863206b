/** Bounds that keep hostile or accidental formulas from exhausting memory or the call stack. */
export const FORMULA_LIMITS = {
  maxExpressionLength: 1000,
  /** Parentheses, function calls and unary minus each open one level. */
  maxNestingDepth: 50,
  maxFunctionArguments: 100,
  /** Longer TEXT results (e.g. from repeated concatenation) evaluate to null. */
  maxTextResultLength: 100_000,
} as const;
