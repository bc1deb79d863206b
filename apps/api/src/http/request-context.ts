import type { Context, Next } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { cancelStatements, forgetCancelledStatements, newId, type Logger, type Orm } from '@mrp/platform';
import { watchClientDeparture } from './client-departure';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestState {
  requestId: string;
  log: Logger;
  em: EntityManager;
  /** The client went away before its answer: what the request was doing was cancelled. */
  clientGone?: boolean;
}

/**
 * Per request: an id (the caller's X-Request-Id when it is sane; it becomes the events'
 * correlationId), a child logger, an access-log line, and its own ORM context. A client that
 * goes away before its answer is written cancels the statements the request is running, so
 * nobody's connection is held for an answer no one will read.
 */
export function requestContext(orm: Orm, logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const given = ctx.get('X-Request-Id');
    const requestId = CLIENT_REQUEST_ID.test(given) ? given : newId();
    const log = logger.child({ requestId });
    const state = ctx.state as RequestState;
    state.requestId = requestId;
    state.log = log;
    const em = orm.em.fork();
    state.em = em;
    ctx.set('X-Request-Id', requestId);
    const startedAt = process.hrtime.bigint();
    let cancelled = false;
    const stopWatching = watchClientDeparture(ctx.req, ctx.res, () => {
      cancelled = true;
      state.clientGone = true;
      cancelStatements(em);
    });
    try {
      await next();
    } finally {
      stopWatching();
      if (cancelled) forgetCancelledStatements(em);
      const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
      log.info({ method: ctx.method, path: ctx.path, status: ctx.status, durationMs: Math.round(durationMs * 10) / 10 }, 'request');
    }
  };
}

export function requestState(ctx: Context): RequestState {
  return ctx.state as RequestState;
}
