/**
 * The benchmark's webhook receiver, in its own process (as a receiver is on another machine): it
 * answers 204 at once, counts what it gets, and reports to its parent over IPC the arrival time
 * (epoch ms, high resolution) of each record while asked to track them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export type ReceiverMessage = { type: 'listening'; port: number } | { type: 'arrival'; recordId: string; at: number } | { type: 'count'; count: number };
export type ReceiverCommand = { type: 'track'; on: boolean } | { type: 'count' };

let tracking = false;
let count = 0;
const send = (message: ReceiverMessage) => process.send?.(message);

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    count += 1;
    if (tracking) {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payload: { recordId: string } };
      send({ type: 'arrival', recordId: event.payload.recordId, at: performance.timeOrigin + performance.now() });
    }
    response.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
process.on('message', (command: ReceiverCommand) => {
  if (command.type === 'track') tracking = command.on;
  else send({ type: 'count', count });
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => send({ type: 'listening', port: (server.address() as AddressInfo).port }));
