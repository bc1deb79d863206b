/**
 * The version of the resource a procedure's answer shows, carried beside the answer rather than in
 * it: the answer's JSON (the contract's shape) is unchanged, and a door that knows what to do with
 * a version (an entity tag over HTTP) reads it here.
 */
export interface AnswerVersion {
  /** The resource's own version: what an `expectedVersion` input is checked against. */
  version: number;
  /** What else shapes the answer's content (field definitions, a selection): part of an entity tag, never of a write check. */
  variant?: string;
}

const ANSWER_VERSION = Symbol('answerVersion');

/** Marks `answer` with its resource's version (a non-enumerable symbol: JSON, spreads and events never see it). */
export function withAnswerVersion<T extends object>(answer: T, version: AnswerVersion): T {
  Object.defineProperty(answer, ANSWER_VERSION, { value: version, enumerable: false });
  return answer;
}

export function answerVersionOf(answer: unknown): AnswerVersion | undefined {
  if (answer === null || typeof answer !== 'object') return undefined;
  return (answer as { [ANSWER_VERSION]?: AnswerVersion })[ANSWER_VERSION];
}
