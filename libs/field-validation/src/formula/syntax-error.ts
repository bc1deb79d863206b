/**
 * Thrown inside the tokenizer and parser only; `parseFormula` converts it into a Result, so it
 * never escapes the library. Exceptions keep the recursive-descent code free of error plumbing.
 */
export class FormulaSyntaxError extends Error {
  constructor(
    message: string,
    /** Zero-based offset into the expression. */
    readonly position: number,
  ) {
    super(message);
    this.name = 'FormulaSyntaxError';
  }
}
