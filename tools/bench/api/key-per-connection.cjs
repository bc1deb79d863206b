'use strict';
/*
 * autocannon `setupClient`, loaded inside its worker thread (which cannot receive a function):
 * each connection authenticates with the next token of BENCH_API_TOKENS (a JSON array), in turn.
 * autocannon merges these headers over the run's own, so the run must carry no Authorization.
 */
const tokens = JSON.parse(process.env.BENCH_API_TOKENS || '[]');
let next = 0;

module.exports = function keyPerConnection(client) {
  if (tokens.length === 0) throw new Error('BENCH_API_TOKENS holds no token');
  const token = tokens[next % tokens.length];
  next += 1;
  client.setHeaders({ Authorization: `Bearer ${token}` });
};
