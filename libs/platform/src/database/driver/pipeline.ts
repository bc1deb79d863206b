import type { Connection, CustomTypesConfig, FieldDef, QueryResult } from 'pg';
import { canPipeline, RowHandlerError, type PooledConnection, type Statement } from './statement';

/** Which statement of a pipeline failed: its index, to name it in the error. */
export class PipelineError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly statementIndex: number,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'PipelineError';
  }
}

interface ResultBuilder {
  fields: FieldDef[];
  parsers: Array<(text: string) => unknown>;
  rows: Array<Record<string, unknown>>;
  command: string;
  rowCount: number | null;
}

const emptyResult = (): ResultBuilder => ({ fields: [], parsers: [], rows: [], command: '', rowCount: null });

/** "INSERT 0 3", "UPDATE 2", "BEGIN": the command and, when there is one, the row count. */
const COMMAND_TAG = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

/**
 * Several statements in one round trip, through pg's Submittable interface (the one its cursor
 * and stream packages use): each statement's Parse (unless prepared and parsed), Bind, Describe
 * and Execute go out in one write, followed by a single Sync. PostgreSQL runs them in order and,
 * once one fails, skips the rest up to the Sync: a failure leaves an open transaction aborted, as
 * if the statements had been sent one by one and the caller had stopped at the first error.
 *
 * Values are bound as text (see `bindValues`); rows are parsed with the connection's type parsers.
 * Answers one result per statement, in order.
 */
export class Pipeline {
  readonly done: Promise<QueryResult[]>;
  private resolve!: (results: QueryResult[]) => void;
  private reject!: (error: unknown) => void;
  private readonly results: ResultBuilder[];
  private current = 0;
  private rowError: unknown;
  private settled = false;

  constructor(
    readonly statements: readonly Statement[],
    private readonly types: CustomTypesConfig,
  ) {
    this.results = statements.map(emptyResult);
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** pg's Submittable: called once the connection is this pipeline's. */
  submit(connection: Connection): void {
    connection.stream.cork();
    try {
      for (const statement of this.statements) {
        // A named statement is here only when already parsed on this connection (canPipeline).
        if (!statement.name) connection.parse({ text: statement.text, name: '', types: [] }, true);
        connection.bind({ statement: statement.name ?? '', portal: '', values: statement.values as Array<string | null> }, true);
        connection.describe({ type: 'P', name: '' }, true);
        connection.execute({ portal: '' }, true);
      }
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
  }

  handleRowDescription(message: { fields: FieldDef[] }): void {
    const result = this.results[this.current];
    result.fields = message.fields;
    result.parsers = message.fields.map((field) => this.types.getTypeParser(field.dataTypeID, field.format === 'binary' ? 'binary' : 'text') as (text: string) => unknown);
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    if (this.rowError !== undefined) return;
    const result = this.results[this.current];
    const onRow = this.statements[this.current]?.onRow;
    try {
      if (onRow) {
        // Streamed (see Statement.onRow): handed over as PostgreSQL wrote it, and not kept.
        try {
          onRow(message.fields);
        } catch (error) {
          this.rowError = new RowHandlerError(error);
        }
        return;
      }
      const row: Record<string, unknown> = {};
      for (let i = 0; i < message.fields.length; i++) {
        const raw = message.fields[i];
        row[result.fields[i].name] = raw === null ? null : result.parsers[i](raw);
      }
      result.rows.push(row);
    } catch (error) {
      this.rowError = error;
    }
  }

  handleCommandComplete(message: { text: string }): void {
    const result = this.results[this.current];
    const tag = COMMAND_TAG.exec(message.text);
    if (tag) {
      result.command = tag[1];
      const count = tag[3] ?? tag[2];
      if (count !== undefined) result.rowCount = Number(count);
    }
    this.current++;
  }

  handleEmptyQuery(): void {
    this.current++;
  }

  /** PostgreSQL's error for the statement at `current`; the connection goes on to the Sync's ReadyForQuery by itself. */
  handleError(error: unknown): void {
    this.settle(() => this.reject(new PipelineError(error, Math.min(this.current, this.statements.length - 1))));
  }

  handleReadyForQuery(): void {
    if (this.rowError !== undefined) {
      const error = this.rowError;
      // Every statement completed by now (`current` is past the last): name the one the row came from.
      this.settle(() => this.reject(new PipelineError(error, Math.min(this.current, this.statements.length - 1))));
      return;
    }
    this.settle(() =>
      this.resolve(
        this.results.map((result) => ({ command: result.command, rowCount: result.rowCount, oid: 0, fields: result.fields, rows: result.rows }) as QueryResult),
      ),
    );
  }

  handlePortalSuspended(): void {
    // Every Execute asks for all rows: a portal is never suspended.
  }

  handleCopyInResponse(connection: Connection & { sendCopyFail?: (message: string) => void }): void {
    connection.sendCopyFail?.('COPY is not supported in a pipeline');
  }

  handleCopyData(): void {
    // No COPY in a pipeline.
  }

  private settle(action: () => void): void {
    if (this.settled) return;
    this.settled = true;
    action();
  }
}

/** Sends `statements` in one round trip on `connection`; one result per statement. */
export function sendPipeline(connection: PooledConnection, statements: readonly Statement[], types: CustomTypesConfig): Promise<QueryResult[]> {
  const unparsed = statements.find((statement) => !canPipeline(connection, statement));
  if (unparsed) throw new Error(`Prepared statement ${unparsed.name} is not parsed on this connection yet: it cannot be pipelined`);
  const pipeline = new Pipeline(statements, types);
  connection.query(pipeline);
  return pipeline.done;
}
