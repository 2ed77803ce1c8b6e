import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { RecoveryEmailRepository } from '@gateway/db/payment-redirect';
import { openRecoveryEmailQueue, type RecoveryEmailQueue } from '@gateway/queue';
import { seedDeposit } from '@gateway/app-testkit';
import { findFreePort } from '@gateway/testkit';
import { loadPaymentRedirectConfig, type PaymentRedirectConfig } from '../../src/config';
import { recoveryEmailMetrics } from '../../src/metrics';
import { RecoveryMailService } from '../../src/services/recovery-mail/recovery-mail-service';
import { SmtpMailer, type Mailer } from '../../src/services/recovery-mail/smtp-mailer';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { moonpayPayment, sandboxWebhook } from '../support/sandbox';
import { startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox';

// The recovery e-mail's faults, driven one job at a time against a real SMTP server (or a closed
// port), real PostgreSQL (as payment-redirect's role) and Redis; the clock is moved rather than waited for.
const fixture = paymentRedirectFixture('recovery-faults');
let app: FastifyInstance;
let config: PaymentRedirectConfig;
let inbox: SmtpInbox;
let queue: RecoveryEmailQueue;
let logs: string[];
let log: FastifyBaseLogger;
let logger: FastifyInstance;
let index = 0;

interface Harness {
  service: RecoveryMailService;
  clock: { now: Date };
  registry: Registry;
}

function harness(mailer: Mailer, sendLeaseMs?: number): Harness {
  const clock = { now: new Date() };
  const registry = new Registry();
  const service = new RecoveryMailService({
    records: new RecoveryEmailRepository(fixture.db.appPool('payment-redirect')),
    queue,
    mailer,
    providers: { describe: () => ({ displayName: 'MoonPay' }) as never },
    publicUrl: 'https://pay.shop.test',
    timing: config.recoveryMail!.timing,
    metrics: recoveryEmailMetrics(registry),
    log,
    now: () => clock.now,
    ...(sendLeaseMs === undefined ? {} : { sendLeaseMs }),
  });
  return { service, clock, registry };
}

/** A declined MoonPay payment of an order of its own, its decline recorded 16 minutes ago (the delay is 15). */
async function declinedOrder(): Promise<{ paymentId: string; temporary: EvmAddress; walletId: string }> {
  index += 1;
  const { paymentId, temporary } = await moonpayPayment(fixture, app, config, index);
  const answer = await sandboxWebhook(app, config, {
    payment_id: paymentId,
    status: 'declined',
    order_id: `sbx_f${index}`,
    reason: 'Card declined',
  });
  expect(answer.statusCode).toBe(200);
  await fixture.db.pool.query(`UPDATE payments SET provider_updated_at = now() - interval '16 minutes' WHERE id = $1`, [paymentId]);
  const { rows } = await fixture.db.pool.query<{ wallet_id: string }>('SELECT wallet_id::text FROM payments WHERE id = $1', [paymentId]);
  return { paymentId, temporary, walletId: rows[0]!.wallet_id };
}

async function recordOf(paymentId: string) {
  const { rows } = await fixture.db.pool.query<{
    id: string;
    state: string;
    attempts: number;
    skip_reason: string | null;
    failure_reason: string | null;
    last_error: string | null;
    payment_id: string;
  }>(
    'SELECT id, state, attempts, skip_reason, failure_reason, last_error, payment_id FROM recovery_emails WHERE wallet_id = (SELECT wallet_id FROM payments WHERE id = $1)',
    [paymentId],
  );
  return rows[0];
}

const counter = async (registry: Registry, name: string) =>
  (await registry.getSingleMetricAsString(name)).split('\n').filter((line) => !line.startsWith('#'));

beforeAll(async () => {
  inbox = await startSmtpInbox();
  config = fixture.config({ SMTP_URL: inbox.url, MAIL_FROM: 'Shop payments <pay@shop.test>' });
  app = await fixture.build(config);
  queue = openRecoveryEmailQueue({ url: config.raw.REDIS_URL, prefix: config.raw.REDIS_PREFIX });
  logs = [];
  const stream = new PassThrough();
  stream.on('data', (line: Buffer) => logs.push(line.toString()));
  logger = Fastify({ logger: { level: 'debug', stream } });
  log = logger.log;
});

afterAll(async () => {
  await queue.close();
  await logger.close();
  await inbox.close();
});

beforeEach(() => {
  inbox.mode = 'accept';
});

it('SMTP down: retried after 1, 5 and 15 minutes, then failed (retries_used); nothing sent, no password logged', async () => {
  const order = await declinedOrder();
  const down = new SmtpMailer({ smtpUrl: `smtp://gateway:${inbox.password}@127.0.0.1:${await findFreePort()}`, from: 'pay@shop.test' });
  const { service, clock, registry } = harness(down);
  await service.scanOnce();
  const record = (await recordOf(order.paymentId))!;
  expect(record).toMatchObject({ state: 'scheduled', attempts: 0 });
  const start = clock.now.getTime();
  const waits: number[] = [];
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const result = await service.sendOne(record.id);
    if (result === 'done') throw new Error(`attempt ${attempt} gave up`);
    waits.push(Math.round((result.againAt.getTime() - clock.now.getTime()) / 60_000));
    clock.now = result.againAt;
    expect(await recordOf(order.paymentId)).toMatchObject({ state: 'scheduled', attempts: attempt });
  }
  expect(waits).toEqual([1, 5, 15]);
  expect(await service.sendOne(record.id)).toBe('done');
  const failed = (await recordOf(order.paymentId))!;
  expect(failed).toMatchObject({ state: 'failed', attempts: 4, failure_reason: 'retries_used' });
  expect(failed.last_error).toMatch(/^(ESOCKET|ECONNECTION|ETIMEDOUT)/);
  expect(clock.now.getTime() - start).toBe(21 * 60_000);
  // Never again, whatever wakes its job.
  expect(await service.sendOne(record.id)).toBe('done');
  expect(inbox.deliveries).toBe(0);
  expect(await counter(registry, 'payment_redirect_recovery_email_retries_total')).toEqual([
    'payment_redirect_recovery_email_retries_total 3',
  ]);
  expect(await counter(registry, 'payment_redirect_recovery_emails_failed_total')).toEqual([
    'payment_redirect_recovery_emails_failed_total{reason="retries_used"} 1',
  ]);
  const written = logs.join('');
  expect(written).toContain('recovery e-mail not sent; trying again later');
  expect(written).not.toContain(inbox.password);
  expect(written).not.toContain('jane@shop.io');
  expect(written).toContain('j***@shop.io');
  down.close();
});

it('a 4xx at the end of the data is retried; a 5xx fails at once (rejected)', async () => {
  const mailer = new SmtpMailer({ smtpUrl: inbox.url, from: 'pay@shop.test' });
  const { service, clock } = harness(mailer);
  const order = await declinedOrder();
  await service.scanOnce();
  const record = (await recordOf(order.paymentId))!;
  inbox.mode = 'temporary_failure';
  const again = await service.sendOne(record.id);
  expect(again).toEqual({ againAt: new Date(clock.now.getTime() + 60_000) });
  expect(await recordOf(order.paymentId)).toMatchObject({ state: 'scheduled', attempts: 1 });
  clock.now = new Date(clock.now.getTime() + 60_000);
  inbox.mode = 'permanent_failure';
  expect(await service.sendOne(record.id)).toBe('done');
  expect(await recordOf(order.paymentId)).toMatchObject({ state: 'failed', attempts: 2, failure_reason: 'rejected' });
  expect((await recordOf(order.paymentId))!.last_error).toContain('550');
  expect(inbox.messages.filter((m) => m.text?.includes(order.paymentId))).toHaveLength(0);
  mailer.close();
});

it('a crash between the send and its record: never sent twice (failed, outcome unknown), and the one sent link works', async () => {
  const real = new SmtpMailer({ smtpUrl: inbox.url, from: 'pay@shop.test' });
  // The process dies once the server took the message, before the worker records it.
  const dying: Mailer = {
    send: async (message) => {
      await real.send(message);
      throw new Error('process killed');
    },
    close: () => real.close(),
  };
  const order = await declinedOrder();
  const { service } = harness(dying, 0);
  const before = inbox.messages.length;
  await service.scanOnce();
  const record = (await recordOf(order.paymentId))!;
  await expect(service.sendOne(record.id)).rejects.toThrow('process killed');
  expect(await recordOf(order.paymentId)).toMatchObject({ state: 'sending', attempts: 1 });
  // Another worker (the job retaken, or recreated by the scan) finds it claimed: nothing to do.
  const { service: restarted } = harness(real, 0);
  expect(await restarted.sendOne(record.id)).toBe('done');
  // The scan after the lease closes it as failed, outcome unknown; still nothing sent again.
  expect((await restarted.scanOnce()).interrupted).toBeGreaterThanOrEqual(1);
  expect(await recordOf(order.paymentId)).toMatchObject({ state: 'failed', failure_reason: 'outcome_unknown' });
  expect(await restarted.sendOne(record.id)).toBe('done');
  const sent = inbox.messages.slice(before).filter((m) => m.text?.includes(order.paymentId));
  expect(sent).toHaveLength(1);
  // The message that went has a working link: its key was stored with the claim.
  const link = new URL(sent[0]!.text!.match(/https:\/\/pay\.shop\.test\/payment\/\S+/)![0]);
  const resumed = await app.inject({ url: `${link.pathname}${link.search}` });
  expect(resumed.statusCode).toBe(303);
  expect(resumed.headers.location).toBe(`/payment/${order.paymentId}`);
  expect(String(resumed.headers['set-cookie'])).toContain(`Path=/payment/${order.paymentId}`);
  real.close();
});

it('no answer once the data was handed over: it may have gone, so it is failed (outcome_unknown) and never sent again', async () => {
  const mailer = new SmtpMailer({ smtpUrl: inbox.url, from: 'pay@shop.test', timeoutMs: 1000 });
  const { service, registry } = harness(mailer);
  const order = await declinedOrder();
  await service.scanOnce();
  const record = (await recordOf(order.paymentId))!;
  inbox.mode = 'hang_after_data';
  const deliveries = inbox.deliveries;
  expect(await service.sendOne(record.id)).toBe('done');
  expect(inbox.deliveries).toBe(deliveries + 1);
  expect(await recordOf(order.paymentId)).toMatchObject({ state: 'failed', attempts: 1, failure_reason: 'outcome_unknown' });
  inbox.mode = 'accept';
  expect(await service.sendOne(record.id)).toBe('done');
  expect(inbox.deliveries).toBe(deliveries + 1);
  expect(await counter(registry, 'payment_redirect_recovery_emails_failed_total')).toEqual([
    'payment_redirect_recovery_emails_failed_total{reason="outcome_unknown"} 1',
  ]);
  mailer.close();
});

it('never when the order got paid meanwhile: skipped (order_paid), no message', async () => {
  const mailer = new SmtpMailer({ smtpUrl: inbox.url, from: 'pay@shop.test' });
  const { service, registry } = harness(mailer);
  const order = await declinedOrder();
  await service.scanOnce();
  const record = (await recordOf(order.paymentId))!;
  await seedDeposit(fixture.db.pool, { walletId: order.walletId, status: 'seen', amount: 49_990_000n, logIndex: index });
  const deliveries = inbox.deliveries;
  expect(await service.sendOne(record.id)).toBe('done');
  expect(await recordOf(order.paymentId)).toMatchObject({ state: 'skipped', skip_reason: 'order_paid' });
  expect(inbox.deliveries).toBe(deliveries);
  expect(await counter(registry, 'payment_redirect_recovery_emails_skipped_total')).toEqual([
    'payment_redirect_recovery_emails_skipped_total{reason="order_paid"} 1',
  ]);
  mailer.close();
});

it('the customer tried again: the e-mail waits for the newest attempt, is sent about it once, and never twice', async () => {
  const mailer = new SmtpMailer({ smtpUrl: inbox.url, from: 'pay@shop.test' });
  const { service } = harness(mailer);
  const order = await declinedOrder();
  await service.scanOnce();
  const record = (await recordOf(order.paymentId))!;
  // A new attempt on the same order (the hosted checkout, a second chance): the first one's e-mail is skipped.
  const again = await app.inject({
    url: '/process-payment.php',
    query: {
      address: sealAddressIn(order.temporary, config.keys),
      amount: '49.99',
      provider: 'banxa',
      email: 'jane@shop.io',
      currency: 'USD',
    },
    headers: { accept: 'application/json' },
  });
  const newer: string = again.json().payment_id;
  expect(await service.sendOne(record.id)).toBe('done');
  expect(await recordOf(order.paymentId)).toMatchObject({ state: 'skipped', skip_reason: 'tried_again' });
  // That one is declined too: the order's one record moves to it and is sent about it.
  await sandboxWebhook(app, config, { payment_id: newer, status: 'declined', order_id: `sbx_n${index}` }, { provider: 'banxa' });
  await fixture.db.pool.query(`UPDATE payments SET provider_updated_at = now() - interval '16 minutes' WHERE id = $1`, [newer]);
  expect((await service.scanOnce()).scheduled).toBe(1);
  expect(await recordOf(order.paymentId)).toMatchObject({ id: record.id, state: 'scheduled', payment_id: newer });
  expect(await service.sendOne(record.id)).toBe('done');
  expect(await recordOf(order.paymentId)).toMatchObject({ state: 'sent', payment_id: newer });
  // A third attempt declined after the e-mail: the order had its one e-mail.
  const third = await app.inject({
    url: '/process-payment.php',
    query: {
      address: sealAddressIn(order.temporary, config.keys),
      amount: '49.99',
      provider: 'moonpay',
      email: 'jane@shop.io',
      currency: 'USD',
    },
    headers: { accept: 'application/json' },
  });
  const thirdId: string = third.json().payment_id;
  await sandboxWebhook(app, config, { payment_id: thirdId, status: 'declined', order_id: `sbx_t${index}` });
  await fixture.db.pool.query(`UPDATE payments SET provider_updated_at = now() - interval '16 minutes' WHERE id = $1`, [thirdId]);
  expect((await service.scanOnce()).scheduled).toBe(0);
  expect(await service.sendOne(record.id)).toBe('done');
  expect(
    inbox.messages.filter((m) => m.text?.includes(newer) || m.text?.includes(thirdId) || m.text?.includes(order.paymentId)),
  ).toHaveLength(1);
  mailer.close();
});

it('mail not configured: nothing is scheduled or sent; SMTP_URL without MAIL_FROM stops the boot without echoing the password', async () => {
  const plain = await fixture.build(fixture.config());
  expect(plain.recoveryMail).toBeUndefined();
  expect(plain.recoveryMailConsumer).toBeUndefined();
  let message = '';
  try {
    loadPaymentRedirectConfig(fixture.env({ SMTP_URL: inbox.url }));
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toContain('MAIL_FROM: required with SMTP_URL');
  expect(message).not.toContain(inbox.password);
  expect(() =>
    loadPaymentRedirectConfig(fixture.env({ SMTP_URL: inbox.url, MAIL_FROM: 'pay@shop.test', RECOVERY_EMAIL_DELAY_MINUTES: '5' })),
  ).toThrow('RECOVERY_EMAIL_DELAY_MINUTES');
});

describe('TLS as SMTP_URL says', () => {
  // smtp-server's own built-in certificate: self-signed, so a client that checks certificates refuses it.
  async function tlsServer(secure: boolean): Promise<{ port: number; received: () => number; close(): Promise<void> }> {
    let received = 0;
    const server = new SMTPServer({
      secure,
      authOptional: true,
      logger: false,
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => {
          received += 1;
          callback();
        });
      },
    });
    // The client hanging up on the certificate is what these tests expect.
    server.on('error', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    return { port, received: () => received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  const message = { to: 'jane@shop.io', subject: 'Test', text: 'Test', html: '<p>Test</p>' };

  it('smtps:// connects with TLS and checks the certificate: an untrusted one is refused before any data (retried, nothing sent)', async () => {
    const server = await tlsServer(true);
    const mailer = new SmtpMailer({ smtpUrl: `smtps://127.0.0.1:${server.port}`, from: 'pay@shop.test', timeoutMs: 5000 });
    const result = await mailer.send(message);
    expect(result).toMatchObject({ kind: 'failed', failure: { afterData: false } });
    expect(result.kind === 'failed' && result.error).toMatch(/certificate/i);
    expect(server.received()).toBe(0);
    mailer.close();
    await server.close();
  });

  it('smtp://…?requireTLS=true refuses a server that offers no STARTTLS, before the data', async () => {
    const mailer = new SmtpMailer({ smtpUrl: `${inbox.url}?requireTLS=true`, from: 'pay@shop.test', timeoutMs: 5000 });
    const before = inbox.deliveries;
    const result = await mailer.send(message);
    expect(result).toMatchObject({ kind: 'failed', failure: { afterData: false } });
    expect(inbox.deliveries).toBe(before);
    mailer.close();
  });

  it('smtp:// upgrades with STARTTLS when the server offers it, and checks its certificate too', async () => {
    const server = await tlsServer(false);
    const mailer = new SmtpMailer({ smtpUrl: `smtp://127.0.0.1:${server.port}`, from: 'pay@shop.test', timeoutMs: 5000 });
    const result = await mailer.send(message);
    expect(result.kind === 'failed' && result.error).toMatch(/certificate/i);
    expect(server.received()).toBe(0);
    mailer.close();
    await server.close();
  });
});
