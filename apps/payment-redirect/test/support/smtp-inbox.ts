import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** How the test SMTP server answers the end of a message's data. */
/** hang_after_data: reads the whole message and never answers (a connection lost once the data was handed over). */
export type InboxMode = 'accept' | 'temporary_failure' | 'permanent_failure' | 'hang_after_data';

/**
 * A real SMTP server on a loopback port (smtp-server), requiring the user and password of its
 * URL (AUTH PLAIN/LOGIN over the plain connection: STARTTLS is not offered), keeping every message
 * it accepts parsed back with mailparser.
 */
export interface SmtpInbox {
  /** smtp://user:password@127.0.0.1:<port> */
  url: string;
  password: string;
  port: number;
  messages: ParsedMail[];
  /** Every DATA received, accepted or not. */
  deliveries: number;
  mode: InboxMode;
  close(): Promise<void>;
}

export async function startSmtpInbox(user = 'gateway', password = 'smtp-pass-MADEUPFORTESTS'): Promise<SmtpInbox> {
  const inbox = { messages: [] as ParsedMail[], deliveries: 0, mode: 'accept' as InboxMode };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        inbox.deliveries += 1;
        if (inbox.mode === 'temporary_failure') {
          return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        }
        if (inbox.mode === 'hang_after_data') return;
        if (inbox.mode === 'permanent_failure') {
          return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
        }
        simpleParser(Buffer.concat(chunks)).then(
          (parsed) => {
            inbox.messages.push(parsed);
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  // A client that hangs up mid-conversation (requireTLS against this server) is not the test's failure.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(inbox, {
    url: `smtp://${user}:${password}@127.0.0.1:${port}`,
    password,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
