'use strict';
/*
 * Test only: preloaded (`--require`) into an api process by a crash test, never part of the app.
 * It kills the process with SIGKILL (no cleanup, no answer) at the moment it starts answering a
 * request whose Idempotency-Key is CRASH_BEFORE_ANSWERING_KEY: after the request's transaction
 * has committed, before a byte of its answer is sent.
 */
const { ServerResponse } = require('node:http');

const key = process.env.CRASH_BEFORE_ANSWERING_KEY;
const writeHead = ServerResponse.prototype.writeHead;

ServerResponse.prototype.writeHead = function crashBeforeAnswering(...args) {
  if (key && this.req && this.req.headers['idempotency-key'] === key) {
    process.kill(process.pid, 'SIGKILL');
    return this;
  }
  return writeHead.apply(this, args);
};
