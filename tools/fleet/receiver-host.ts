/**
 * The fleet's receiver host: the shared webhook receiver on the address and port it is given,
 * in a process of its own (run in the receiver's network namespace). The test reads what it
 * received with a GET of /receipts.
 */
import { startReceiver } from '../support/receiver';

async function main(): Promise<void> {
  const receiver = await startReceiver({ host: process.env.FLEET_RECEIVER_HOST, port: Number(process.env.FLEET_RECEIVER_PORT ?? 0) });
  process.stdout.write(`${JSON.stringify({ msg: 'receiver listening', url: receiver.url })}\n`);
  const stop = () => void receiver.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
