import { EntityManager, JsonProperty, Utils } from '@mikro-orm/core';
import { AbstractSqlDriver, PostgreSqlConnection, PostgreSqlPlatform, knex, type Knex } from '@mikro-orm/postgresql';
import { Client, Connection, Query, types } from 'pg';
import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { FeatureFlag } from '../../feature-flags/feature-flag.entity';
import { platformModule } from '../../platform-module';
import { DirectPgConnection } from './direct-pg-driver';
import { PinnedTransaction, pinnedTransactionOf, type KnexPool } from './pinned-transaction';
import { Pipeline } from './pipeline';

/**
 * The members of knex, MikroORM and pg this folder uses beyond their documented API (README.md).
 * Each one is checked for what the driver assumes of it, so an upgrade that changes one fails
 * here, naming the package and the file to re-check, rather than somewhere in a transaction.
 */

/** Fails with a message that says which dependency changed what, and where the driver relies on it. */
function expectRelied(holds: boolean, dependency: string, member: string, recheck: string): void {
  if (!holds) throw new Error(`${dependency} changed ${member}: re-check ${recheck} (libs/platform/src/database/driver/README.md) before taking this version`);
}

type Method = (...args: never[]) => unknown;
const isMethod = (value: unknown, arity: number): boolean => typeof value === 'function' && (value as Method).length === arity;

describe('what the driver relies on of pg, knex and MikroORM', () => {
  let db: TestOrm;
  const connectionOf = (): DirectPgConnection => db.orm.em.getDriver().getConnection() as DirectPgConnection;
  const knexClient = (): Knex.Client => connectionOf().getKnex().client;

  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  describe('pg', () => {
    it.each([
      ['parse', 1],
      ['bind', 1],
      ['describe', 1],
      ['execute', 1],
      ['sync', 0],
      ['sendCopyFail', 1],
    ])('Connection.prototype.%s is a protocol method taking %i argument(s) (pipeline.ts writes messages with it)', (name, arity) => {
      expectRelied(isMethod((Connection.prototype as unknown as Record<string, unknown>)[name], arity), 'pg', `Connection.prototype.${name}`, 'Pipeline.submit in pipeline.ts');
    });

    it("calls a submittable's handlers by the names pg's own Query answers to, and the pipeline has each of them", () => {
      const handlers = (prototype: object) => Object.getOwnPropertyNames(prototype).filter((name) => name.startsWith('handle')).sort();
      const missing = handlers(Query.prototype).filter((name) => !handlers(Pipeline.prototype).includes(name));
      expectRelied(missing.length === 0, 'pg', `the Submittable handlers (Pipeline lacks ${missing.join(', ')})`, 'the handle* methods of Pipeline in pipeline.ts');
      expectRelied(handlers(Query.prototype).length > 0 && typeof Query.prototype.submit === 'function', 'pg', 'Query.prototype.submit', 'Pipeline in pipeline.ts');
    });

    it("gives a pooled connection its protocol Connection, a corkable stream, and the backend's process id and secret key", async () => {
      const pool = knexClient();
      const client = (await pool.acquireConnection()) as Client & { connection?: unknown; processID?: unknown; secretKey?: unknown };
      try {
        expectRelied(client instanceof Client, 'knex or pg', "the pooled connection (not a pg Client)", 'statement.ts (PooledConnection)');
        expectRelied(client.connection instanceof Connection, 'pg', 'Client.connection', 'Pipeline.submit in pipeline.ts');
        const stream = (client.connection as unknown as { stream?: Record<string, unknown> }).stream;
        expectRelied(isMethod(stream?.cork, 0) && isMethod(stream?.uncork, 0), 'pg', 'Connection.stream.cork/uncork', 'Pipeline.submit in pipeline.ts');
        expectRelied(Number.isInteger(client.processID) && Number.isInteger(client.secretKey), 'pg', 'Client.processID/secretKey', 'cancelRunningStatement in statement-cancel.ts');
      } finally {
        await pool.releaseConnection(client);
      }
    });

    it('parses rows with type parsers looked up by type id and format', () => {
      expectRelied(isMethod(types.getTypeParser, 2), 'pg', 'types.getTypeParser', 'Pipeline.handleRowDescription in pipeline.ts');
    });
  });

  describe('knex', () => {
    it("hands out and takes back pooled connections through its client's acquireConnection/releaseConnection", () => {
      const client = knexClient() as unknown as Record<string, unknown>;
      expectRelied(client instanceof knex.Client, 'knex or @mikro-orm/knex', 'getKnex().client (not a knex Client)', 'knexPool in direct-pg-driver.ts');
      expectRelied(isMethod(client.acquireConnection, 0) && isMethod(client.releaseConnection, 1), 'knex', 'Client.acquireConnection/releaseConnection', 'KnexPool in pinned-transaction.ts');
    });

    it("drops a pooled connection once it ends, by its own 'end' listener", async () => {
      const pool = knexClient();
      const client = (await pool.acquireConnection()) as Client;
      try {
        expectRelied(client.listenerCount('end') > 0, 'knex', "the pool's 'end' listener on a pg connection", 'discardIfCancelled in statement-cancel.ts and rollbackOrDrop in pinned-transaction.ts');
      } finally {
        await pool.releaseConnection(client);
      }
    });

    it('makes a query `.transacting(trx)` take the client of a pinned transaction (an Object.create of its own client) and compile with it', () => {
      const transaction = new PinnedTransaction(knexClient() as unknown as KnexPool, ['begin'], types);
      const query = connectionOf().getKnex().select('id').from('feature_flags').where('key', 'a').transacting(transaction as unknown as Knex.Transaction);
      const client = (query as unknown as { client: { transacting?: unknown } }).client;
      expectRelied(client === (transaction.client as unknown), 'knex', "QueryBuilder.transacting (no longer takes the transaction's client)", 'PinnedTransaction.client in pinned-transaction.ts');
      expectRelied(client.transacting === true, 'knex', 'the `transacting` flag of a transaction client', 'DirectPgConnection.execute in direct-pg-driver.ts');
      expectRelied(pinnedTransactionOf(query) === transaction, 'knex', "a query's `client` property", 'pinnedTransactionOf in pinned-transaction.ts');
      expectRelied(query.toSQL().sql === 'select "id" from "feature_flags" where "key" = ?', 'knex', "compiling with a client made by Object.create(client)", 'PinnedTransaction.client in pinned-transaction.ts');
    });
  });

  describe('MikroORM', () => {
    it.each([
      ['execute', 1],
      ['begin', 0],
      ['commit', 3],
      ['rollback', 3],
      ['ensureConnection', 0],
      ['executeQuery', 3],
      ['logQuery', 1],
      ['transformRawResult', 2],
      ['getConnectionOptions', 0],
      ['getKnex', 0],
    ])('PostgreSqlConnection.prototype.%s takes %i declared argument(s) (DirectPgConnection overrides or calls it)', (name, arity) => {
      expectRelied(isMethod((PostgreSqlConnection.prototype as unknown as Record<string, unknown>)[name], arity), '@mikro-orm/knex or @mikro-orm/postgresql', `PostgreSqlConnection.prototype.${name}`, 'DirectPgConnection in direct-pg-driver.ts');
    });

    it('builds a driver from (config, platform, connection class, dependencies)', () => {
      expectRelied(AbstractSqlDriver.length === 4, '@mikro-orm/knex', 'the AbstractSqlDriver constructor', 'DirectPgDriver in direct-pg-driver.ts');
    });

    it("passes a statement the id of the EntityManager that runs it in the logger context (the owner a cancel reaches)", async () => {
      const em = db.orm.em.fork();
      const connection = connectionOf();
      const contexts: unknown[] = [];
      const execute = connection.execute;
      connection.execute = function (this: DirectPgConnection, ...args: Parameters<typeof execute>) {
        contexts.push(args[4]);
        return execute.apply(this, args);
      } as typeof execute;
      try {
        await em.find(FeatureFlag, {});
      } finally {
        connection.execute = execute;
      }
      expectRelied(em instanceof EntityManager && contexts.length > 0 && contexts.every((context) => (context as { id?: unknown } | undefined)?.id === em.id), '@mikro-orm/core', 'the logger context `id` of a statement', 'ownerOf in direct-pg-driver.ts and cancelStatementsOf');
    });

    it("recognises raw SQL, plain objects and JSON properties, and quotes identifiers, the way parameterized-sql.ts asks", () => {
      const platform = new PostgreSqlPlatform();
      expectRelied(isMethod(Utils.isRawSql, 1) && isMethod(Utils.isPlainObject, 1), '@mikro-orm/core', 'Utils.isRawSql/isPlainObject', 'parameterized-sql.ts');
      expectRelied(typeof JsonProperty === 'symbol', '@mikro-orm/core', 'JsonProperty', 'parameterized-sql.ts');
      expectRelied(isMethod(platform.isRaw, 1) && platform.quoteIdentifier('a') === '"a"', '@mikro-orm/postgresql', 'Platform.isRaw/quoteIdentifier', 'parameterized-sql.ts');
      expectRelied(Array.isArray(platform.getBeginTransactionSQL({})), '@mikro-orm/knex', 'Platform.getBeginTransactionSQL (no longer a list of statements)', 'DirectPgConnection.begin in direct-pg-driver.ts');
    });
  });
});
