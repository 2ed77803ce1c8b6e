import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { SmtpFailure } from '@gateway/domain';
import { createTransport } from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import MailComposer from 'nodemailer/lib/mail-composer';

/** One message to one customer: a plain part and an HTML part of the same words. */
export interface OutgoingMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export type MailSendResult =
  | { kind: 'sent'; messageId: string }
  /** `error`: the SMTP client's code, command and the server's reply; never the SMTP URL or its password. */
  | { kind: 'failed'; failure: SmtpFailure; error: string };

export interface Mailer {
  send(message: OutgoingMessage): Promise<MailSendResult>;
  close(): void;
}

export interface SmtpMailerOptions {
  /** SMTP_URL: smtps:// (TLS) or smtp:// (STARTTLS when offered, or required with ?requireTLS=true). */
  smtpUrl: string;
  /** MAIL_FROM. */
  from: string;
  /** How long connecting, the greeting and each reply may take. */
  timeoutMs?: number;
}

interface NodemailerError extends Error {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
}

/**
 * Sends through the operator's SMTP server with nodemailer. The message is built first and handed
 * to the connection as a stream, so the mailer knows whether a failure came before the server was
 * given the data (certainly not sent: retried) or after (it may have gone: never sent again, the
 * at-most-once rule of recovery-email.ts). One connection per message: a handful of e-mails an hour.
 */
export class SmtpMailer implements Mailer {
  private readonly transport;
  private readonly fromAddress: string;
  private readonly domain: string;

  constructor(private readonly options: SmtpMailerOptions) {
    const timeout = options.timeoutMs ?? 30_000;
    this.transport = createTransport({
      url: options.smtpUrl,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      // nodemailer's own logger stays off: it would print the conversation, AUTH included.
      logger: false,
      debug: false,
    });
    const [parsed] = addressparser(options.from, { flatten: true });
    this.fromAddress = parsed?.address ?? options.from;
    this.domain = this.fromAddress.split('@')[1] ?? 'localhost';
  }

  async send(message: OutgoingMessage): Promise<MailSendResult> {
    const messageId = `<${randomUUID()}@${this.domain}>`;
    const raw = await new MailComposer({
      from: this.options.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      messageId,
      // A message that asks to be answered by a person: no auto-replies from vacation robots.
      headers: { 'Auto-Submitted': 'auto-generated' },
    })
      .compile()
      .build();
    let handedOver = false;
    const data = Readable.from([raw]);
    // The stream ends once the connection has read all of it, which it does only after DATA's 354.
    data.on('end', () => {
      handedOver = true;
    });
    try {
      await this.transport.sendMail({ envelope: { from: this.fromAddress, to: [message.to] }, raw: data });
      return { kind: 'sent', messageId };
    } catch (error) {
      const failure = error as NodemailerError;
      return {
        kind: 'failed',
        failure: { ...(typeof failure.responseCode === 'number' ? { responseCode: failure.responseCode } : {}), afterData: handedOver },
        error: describeSmtpError(failure),
      };
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** What an SMTP error says, for the record and the logs: its code, the command, the server's reply (trimmed). */
function describeSmtpError(error: NodemailerError): string {
  const parts = [error.code ?? 'error', error.command ? `at ${error.command}` : undefined, error.response ?? error.message];
  return parts
    .filter((part): part is string => part !== undefined && part !== '')
    .join(' ')
    .slice(0, 500);
}
