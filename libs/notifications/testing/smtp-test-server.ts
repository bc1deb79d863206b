import { SMTPServer } from 'smtp-server';

export interface ReceivedEmail {
  from: string | undefined;
  recipients: string[];
  raw: string;
}

export interface SmtpTestServer {
  /** `smtp://user:password@127.0.0.1:<port>` */
  url: string;
  received: ReceivedEmail[];
  /** While set, every recipient is refused with this 5xx answer. */
  rejectWith: string | null;
  close(): Promise<void>;
}

/** A real SMTP server on a free loopback port, keeping what it accepts. */
export async function startSmtpTestServer(): Promise<SmtpTestServer> {
  const state: SmtpTestServer = { url: '', received: [], rejectWith: null, close: async () => undefined };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onRcptTo(_address, _session, callback) {
      if (state.rejectWith === null) return callback();
      const error = Object.assign(new Error(state.rejectWith), { responseCode: 550 });
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        state.received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          recipients: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('The SMTP test server has no port');
  state.url = `smtp://mailer:secret@127.0.0.1:${address.port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
