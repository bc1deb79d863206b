import { createTransport } from 'nodemailer';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends one email; rejects when the server does not accept it. */
export type SendEmail = (message: EmailMessage) => Promise<void>;

export interface SmtpSender {
  send: SendEmail;
  close(): void;
}

/** How long connecting, the greeting and each exchange with the server may take. */
const SMTP_TIMEOUT_MS = 10_000;

/**
 * One transport per process, from SMTP_URL (`smtp://` or `smtps://user:password@host:port`).
 * nodemailer encodes the subject and refuses line breaks in headers, so a title cannot add headers.
 */
export function createSmtpSender({ smtpUrl, from }: { smtpUrl: string; from: string }): SmtpSender {
  const transport = createTransport({
    url: smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  } as Parameters<typeof createTransport>[0]);
  return {
    async send({ to, subject, text }) {
      await transport.sendMail({ from, to, subject, text });
    },
    close: () => transport.close(),
  };
}
