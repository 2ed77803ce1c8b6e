import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { seedDeposit } from '@gateway/app-testkit';
import { openRecoveryEmailQueue } from '@gateway/queue';
import { findFreePort, waitFor } from '@gateway/testkit';
import { DESKTOP, launchChromium, screenshotBoth } from '@gateway/testkit/browser';
import type { ParsedMail } from 'mailparser';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { moonpayPayment, sandboxWebhook } from '../support/sandbox';
import { startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox';

// The recovery e-mail end to end in one payment-redirect process listening on a real port: its scan
// schedules, its BullMQ worker sends through a real SMTP server (smtp-server), the message is parsed
// back (mailparser), and its link is followed in Debian's Chromium (playwright-core).
const fixture = paymentRedirectFixture('recovery-mail');
const ARTIFACTS = join(__dirname, '..', '..', 'artifacts');

let app: FastifyInstance;
let config: PaymentRedirectConfig;
let inbox: SmtpInbox;
let browser: Browser;
let publicUrl: string;
let index = 0;
let sandbox: { url: string; close(): Promise<void> };

function screenshot(page: Page, name: string): Promise<void> {
  return screenshotBoth(page, ARTIFACTS, name);
}

/** Stands in for the sandbox provider's checkout page the browser is sent on to (the sandbox app is not started here). */
async function startSandboxStandIn(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>Sandbox checkout</title><h1>Sandbox checkout</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function mailAbout(paymentId: string): Promise<ParsedMail> {
  return waitFor('the recovery e-mail', async () => inbox.messages.find((message) => message.text?.includes(paymentId)), 20_000);
}

function linkIn(message: ParsedMail): string {
  const match = message.text!.match(new RegExp(`${publicUrl}/payment/[0-9a-f-]{36}/resume\\?key=[A-Za-z0-9_-]{43}`));
  return match![0];
}

async function recordOf(paymentId: string) {
  const { rows } = await fixture.db.pool.query<{ state: string; message_id: string | null; recovered_at: Date | null }>(
    'SELECT state, message_id, recovered_at FROM recovery_emails WHERE payment_id = $1',
    [paymentId],
  );
  return rows[0];
}

beforeAll(async () => {
  inbox = await startSmtpInbox();
  sandbox = await startSandboxStandIn();
  const port = await findFreePort();
  publicUrl = `http://127.0.0.1:${port}`;
  config = fixture.config({
    PUBLIC_URL: publicUrl,
    SMTP_URL: inbox.url,
    MAIL_FROM: 'Shop payments <pay@shop.test>',
    RECOVERY_EMAIL_SCAN_INTERVAL_MS: '200',
    STATUS_POLL_WORKER: 'off',
    SANDBOX_PROVIDER_URL: sandbox.url,
  });
  app = await fixture.build(config);
  await app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await inbox?.close();
  await sandbox?.close();
});

it('a declined card: one plain e-mail 15 minutes on, whose link opens the same order with its other providers in Chromium', async () => {
  index += 1;
  const { paymentId } = await moonpayPayment(fixture, app, config, index);
  await sandboxWebhook(app, config, {
    payment_id: paymentId,
    status: 'declined',
    order_id: `sbx_b${index}`,
    reason: 'card declined by issuer',
  });
  // Declined just now: scheduled, its job delayed 15 minutes, nothing sent.
  await waitFor('the e-mail scheduled', async () => (await recordOf(paymentId))?.state === 'scheduled', 10_000);
  const record = (
    await fixture.db.pool.query<{ id: string; due_at: Date }>('SELECT id, due_at FROM recovery_emails WHERE payment_id = $1', [paymentId])
  ).rows[0]!;
  const queue = openRecoveryEmailQueue({ url: config.raw.REDIS_URL, prefix: config.raw.REDIS_PREFIX });
  const job = await queue.getJob(record.id);
  expect(await job!.getState()).toBe('delayed');
  expect(Math.round((record.due_at.getTime() - Date.now()) / 60_000)).toBe(15);
  expect(inbox.messages.filter((m) => m.text?.includes(paymentId))).toHaveLength(0);
  // Fifteen minutes on (the test moves the clock: the decline and the due time back, the job's wait ended).
  await fixture.db.pool.query(`UPDATE payments SET provider_updated_at = now() - interval '16 minutes' WHERE id = $1`, [paymentId]);
  await fixture.db.pool.query(`UPDATE recovery_emails SET due_at = now() - interval '1 minute' WHERE id = $1`, [record.id]);
  await job!.promote();
  await queue.close();
  const message = await mailAbout(paymentId);

  expect(message.subject).toBe('Your payment of 49.99 USD did not go through');
  expect(message.from?.text).toBe('"Shop payments" <pay@shop.test>');
  expect(message.to && !Array.isArray(message.to) ? message.to.text : '').toBe('jane@shop.io');
  expect(message.headers.get('auto-submitted')).toBe('auto-generated');
  const link = linkIn(message);
  expect(message.text).toBe(
    [
      'MoonPay did not complete your payment of 49.99 USD. MoonPay said: Card declined by issuer.',
      'No money reached the shop for this order, so it is still open.',
      `You can finish the same order with another payment provider, without going back to the shop:\n${link}`,
      'The link is for you alone and works for 7 days. If you have paid already or no longer want to buy, ignore this message: it is ' +
        'the only one you will get about this order.',
    ].join('\n\n'),
  );
  expect(message.html).toContain(`<a href="${link}"`);
  expect(message.html).toContain('Choose another way to pay');
  expect(message.html).not.toMatch(/<script/i);
  // The server has the message a moment before the worker records the server's answer.
  await waitFor('the e-mail recorded as sent', async () => (await recordOf(paymentId))?.state === 'sent', 10_000);
  expect(await recordOf(paymentId)).toMatchObject({ state: 'sent', message_id: message.messageId });

  // The message as the customer sees it, its button clicked in a browser that never saw this payment.
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await page.setContent(message.html as string);
  await screenshot(page, 'recovery-email-declined');
  await Promise.all([
    page.waitForURL(`${publicUrl}/payment/${paymentId}`),
    page.getByRole('link', { name: 'Choose another way to pay' }).click(),
  ]);
  // The key left the address bar; the browser holds it as the payment's cookie.
  expect(page.url()).toBe(`${publicUrl}/payment/${paymentId}`);
  expect(await page.locator('h1').textContent()).toBe('Your card was declined');
  const choices = await Promise.all(
    (await page.locator('#second-chance button.choice').all()).map((button) => button.getAttribute('data-provider')),
  );
  expect(choices).toContain('banxa');
  expect(choices).not.toContain('moonpay');
  await screenshot(page, 'recovery-email-second-chance');

  // One click on the first choice offered (the decline orders them): a new attempt on the same order
  // (the same wallet), on to that provider's checkout.
  const first = page.locator('#second-chance button.choice').first();
  const chosen = await first.getAttribute('data-provider');
  await first.click();
  await page.waitForURL(`${config.raw.SANDBOX_PROVIDER_URL}/**`);
  const { rows } = await fixture.db.pool.query<{ provider: string; same_wallet: boolean }>(
    `SELECT n.provider, n.wallet_id = p.wallet_id AS same_wallet FROM payments n, payments p
     WHERE p.id = $1 AND n.id <> p.id AND n.wallet_id = p.wallet_id`,
    [paymentId],
  );
  expect(rows).toEqual([{ provider: chosen, same_wallet: true }]);
  await context.close();

  // Anyone else with the address but not the key: the receipt to read, nothing to act with.
  const strangers = await browser.newContext({ viewport: DESKTOP });
  const stranger = await strangers.newPage();
  const forged = `${link.slice(0, -4)}AAAA`;
  await stranger.goto(forged);
  expect(stranger.url()).toBe(`${publicUrl}/payment/${paymentId}`);
  expect(await stranger.locator('#second-chance').count()).toBe(0);
  expect(await stranger.locator('#second-chance-elsewhere').count()).toBe(1);
  await strangers.close();

  // USDC arrives after the e-mail: the order counts as recovered, once.
  const { rows: wallet } = await fixture.db.pool.query<{ wallet_id: string }>('SELECT wallet_id::text FROM payments WHERE id = $1', [
    paymentId,
  ]);
  await seedDeposit(fixture.db.pool, { walletId: wallet[0]!.wallet_id, status: 'seen', amount: 49_990_000n, logIndex: index });
  await waitFor('the order counted as recovered', async () => (await recordOf(paymentId))?.recovered_at ?? undefined, 10_000);
  const metrics = await app.metrics.metrics();
  expect(metrics).toContain('payment_redirect_recovery_emails_sent_total{trigger="declined",service="payment-redirect"} 1');
  expect(metrics).toContain('payment_redirect_recovery_orders_recovered_total{service="payment-redirect"} 1');
}, 90_000);

it('an abandoned checkout: "not finished", and the link goes back to the same checkout', async () => {
  index += 1;
  const { paymentId } = await moonpayPayment(fixture, app, config, index);
  // Handed out 46 minutes ago, and not a word from the provider: abandoned at 30, the e-mail 15 minutes later.
  await fixture.db.pool.query(`UPDATE payments SET created_at = now() - interval '46 minutes' WHERE id = $1`, [paymentId]);
  const message = await mailAbout(paymentId);
  expect(message.subject).toBe('Your payment of 49.99 USD is not finished');
  expect(message.text).toContain('You started paying 49.99 USD with MoonPay, but the payment was not finished.');
  expect(message.text).toContain('You can continue the same order where you left off:');
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await page.setContent(message.html as string);
  await screenshot(page, 'recovery-email-abandoned');
  await Promise.all([
    page.waitForURL(`${config.raw.SANDBOX_PROVIDER_URL}/**`),
    page.getByRole('link', { name: 'Continue your payment' }).click(),
  ]);
  expect(await page.locator('h1').textContent()).toBe('Sandbox checkout');
  await context.close();
  // Sent once, whatever the scans after.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(inbox.messages.filter((m) => m.text?.includes(paymentId))).toHaveLength(1);
}, 60_000);
