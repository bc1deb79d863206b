/** A start-up failure of the embedded PostgreSQL, as one line that says what to do. */
export class EmbeddedPostgresError extends Error {
  override readonly name = 'EmbeddedPostgresError';
}
