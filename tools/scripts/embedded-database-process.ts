/**
 * Runs the embedded PostgreSQL in a process of its own for `npm start`. The package stops its
 * server on the first SIGTERM/SIGINT of the process that started it; living apart from the
 * launcher lets the launcher stop the apps first and the database last.
 */
import { startEmbeddedPostgres } from '@mrp/platform';

startEmbeddedPostgres({ port: Number(process.env.EMBEDDED_POSTGRES_PORT ?? 54329) }).then(
  (database) => {
    process.send?.({ url: database.url });
  },
  (error: unknown) => {
    process.stderr.write(`embedded PostgreSQL failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
