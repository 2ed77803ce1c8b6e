import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAclRedis, type AclRedis } from '@gateway/app-testkit';
import { appNodeArguments } from '@gateway/config';
import { createSealingKeyRing, sealAddressIn, type EvmAddress } from '@gateway/domain';
import { SAMPLE_RATE_FILE } from '@gateway/rates';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { NO_QUOTE_API } from '../../../../packages/providers/test/support/no-quote-api';

const ROOT = join(__dirname, '..', '..', '..', '..');
const MAIN = join('apps', 'payment-redirect', 'src', 'main.ts');
const MOONPAY = {
  API_KEY: 'pk_test_123456789abcdefghijklmnopqrstuv',
  SECRET_KEY: 'sk_test_abcdefgh1234567890abcdefghijklm',
  WEBHOOK_KEY: 'wk_test_zyxwvuts9876543210zyxwvutsrqpon',
};

/** What a public DNS would answer for the names these tests give PUBLIC_URL (the tests have no internet). */
const DNS_ANSWERS = {
  'pay.example.org': ['93.184.215.14'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'localhost.localdomain': ['127.0.0.1', '::1'],
};

/** Starts payment-redirect as the image does: `node … apps/payment-redirect/src/main.ts` from the repository root, NODE_ENV=production. */
function runAsImage(env: Record<string, string>) {
  const dnsAnswers = join(__dirname, '..', 'support', 'dns-answers.ts');
  const child = spawn(process.execPath, [...appNodeArguments('payment-redirect'), '--require', dnsAnswers, MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', TEST_DNS_ANSWERS: JSON.stringify(DNS_ANSWERS), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /"server":"public"[^\n]*listening at http:\/\/127\.0\.0\.1:(\d+)|listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (match) {
        clearInterval(timer);
        resolve(Number(match[1] ?? match[2]));
      }
    }, 50);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`exited: ${stderr}`));
    });
  });
  // A run that is meant to fail never awaits it.
  listening.catch(() => undefined);
  return { child, exited, listening, output: () => ({ stdout, stderr }) };
}

/** How a run meant to be refused ended: its exit code, or 'listening' (then stopped) when it booted after all. */
async function bootOutcome(run: ReturnType<typeof runAsImage>): Promise<number | null | 'listening'> {
  const outcome = await Promise.race([
    run.exited,
    run.listening.then(
      () => 'listening' as const,
      () => run.exited,
    ),
  ]);
  if (outcome === 'listening') {
    run.child.kill('SIGTERM');
    await run.exited;
  }
  return outcome;
}

const fixture = paymentRedirectFixture('production-boot');
let dir: string;
// Production connects the app as its own Redis user: a private redis-server with the apps' users.
let acl: AclRedis;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payment-redirect-secrets-'));
  acl = await startAclRedis('boot');
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await acl?.stop();
});

/** Writes each setting to a file and passes its path as <NAME>_FILE, as Kubernetes mounts secrets. */
function fromFiles(settings: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings).map(([name, value]) => {
      const file = join(dir, name.toLowerCase());
      writeFileSync(file, `${value}\n`, { mode: 0o600 });
      return [`${name}_FILE`, file];
    }),
  );
}

describe('payment-redirect booted as the image runs it', () => {
  it('with MoonPay test credentials from files, test mode allowed explicitly: ready, and Process Payment gives a signed MoonPay sandbox link', async () => {
    const key = randomBytes(32);
    const keys = createSealingKeyRing([{ id: 'p1', key }]);
    const temporary = '0x3333333333333333333333333333333333333333' as EvmAddress;
    const addressIn = sealAddressIn(temporary, keys);
    await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=prod-1' });
    // The operator's own table: the sample's currencies at other rates (the sample itself is refused by its content).
    const rateFile = join(dir, 'rates.json');
    const sample = JSON.parse(readFileSync(SAMPLE_RATE_FILE, 'utf8')) as { rates: Record<string, string> };
    writeFileSync(
      rateFile,
      JSON.stringify({
        base: 'USD',
        rates: Object.fromEntries(Object.keys(sample.rates).map((code) => [code, code === 'USD' ? '1' : '1.5'])),
      }),
    );
    const base = fixture.env();
    const run = runAsImage({
      DATABASE_URL: base.DATABASE_URL!,
      DATABASE_SCHEMA: base.DATABASE_SCHEMA!,
      REDIS_PREFIX: acl.prefix,
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: '0',
      PUBLIC_URL: 'https://pay.example.org',
      RATE_SOURCE: 'file',
      RATE_FILE: rateFile,
      ALLOW_PROVIDER_TEST_MODE: 'true',
      PROVIDER_MOONPAY_API_URL: NO_QUOTE_API,
      ...fromFiles({
        REDIS_URL: acl.urlOf('payment-redirect'),
        ADDRESS_IN_KEYS: `p1:${key.toString('base64')}`,
        PROVIDER_MOONPAY_API_KEY: MOONPAY.API_KEY,
        PROVIDER_MOONPAY_SECRET_KEY: MOONPAY.SECRET_KEY,
        PROVIDER_MOONPAY_WEBHOOK_KEY: MOONPAY.WEBHOOK_KEY,
      }),
    });
    try {
      const port = await run.listening;
      const origin = `http://127.0.0.1:${port}`;
      expect((await fetch(`${origin}/readyz`)).status).toBe(200);

      const order = { address: addressIn, amount: '49.99', provider: 'moonpay', email: 'jane@shop.io', currency: 'EUR' };
      const response = await fetch(`${origin}/process-payment.php?${new URLSearchParams(order)}`, {
        headers: { accept: 'application/json' },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { payment_id: string; checkout_url: string };
      const link = new URL(body.checkout_url);
      expect(link.origin).toBe('https://buy-sandbox.moonpay.com');
      expect(link.searchParams.get('walletAddress')).toBe(temporary);
      expect(link.searchParams.get('externalTransactionId')).toBe(body.payment_id);
      expect(link.searchParams.get('redirectURL')).toBe(`https://pay.example.org/payment/${body.payment_id}`);
      const [unsigned, signature] = link.search.split('&signature=') as [string, string];
      expect(decodeURIComponent(signature)).toBe(createHmac('sha256', MOONPAY.SECRET_KEY).update(unsigned).digest('base64'));

      // A provider without credentials is not offered, in words; pay.php lists MoonPay alone.
      const other = await fetch(`${origin}/process-payment.php?${new URLSearchParams({ ...order, provider: 'mercuryo' })}`, {
        headers: { accept: 'application/json' },
      });
      expect(other.status).toBe(400);
      expect(await other.json()).toMatchObject({
        code: 'provider_not_offered',
        param: 'provider',
        error: expect.stringMatching(/Mercuryo is not offered by this gateway/),
      });
      const page = await (
        await fetch(
          `${origin}/pay.php?${new URLSearchParams({ address: addressIn, amount: '49.99', email: 'jane@shop.io', currency: 'EUR' })}`,
        )
      ).text();
      expect([...page.matchAll(/data-provider="([a-z0-9]+)"/g)].map((match) => match[1])).toEqual(['moonpay']);

      // MoonPay's signed webhook for that payment is recorded.
      const webhook = JSON.stringify({
        type: 'transaction_updated',
        data: { id: 'mp_1', status: 'completed', externalTransactionId: body.payment_id, walletAddress: temporary },
      });
      const t = Math.floor(Date.now() / 1000);
      const s = createHmac('sha256', MOONPAY.WEBHOOK_KEY).update(`${t}.${webhook}`).digest('hex');
      const delivered = await fetch(`${origin}/webhooks/moonpay`, {
        method: 'POST',
        body: webhook,
        headers: { 'content-type': 'application/json', 'moonpay-signature-v2': `t=${t},s=${s}` },
      });
      expect(delivered.status).toBe(200);
      expect(delivered.headers.get('x-webhook-outcome')).toBe('updated');
      const { rows } = await fixture.db.pool.query(
        'SELECT status, provider_status, provider_raw_status, provider_reference FROM payments WHERE id = $1',
        [body.payment_id],
      );
      expect(rows[0]).toEqual({
        status: 'redirected',
        provider_status: 'paid',
        provider_raw_status: 'completed',
        provider_reference: 'mp_1',
      });
      expect(run.output().stdout).not.toContain(MOONPAY.SECRET_KEY);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });

  it("refuses to boot on the development defaults, naming each problem and no secret's value", async () => {
    const sandboxSecret = '='.repeat(43);
    const run = runAsImage({
      DATABASE_URL: fixture.env().DATABASE_URL!,
      SANDBOX_CHECKOUT: 'on',
      ...fromFiles({ ADDRESS_IN_KEYS: `p1:${randomBytes(32).toString('base64')}`, SANDBOX_SIGNING_SECRET: sandboxSecret }),
      RATE_SOURCE: 'file',
      RATE_FILE: SAMPLE_RATE_FILE,
    });
    expect(await run.exited).toBe(1);
    const { stderr } = run.output();
    expect(stderr).toMatch(
      /PUBLIC_URL: must be the https URL customers and providers reach this host at in production \(got http:\/\/127\.0\.0\.1:3200\)/,
    );
    expect(stderr).toMatch(/SANDBOX_CHECKOUT: on is refused in production/);
    expect(stderr).toMatch(/SANDBOX_SIGNING_SECRET: must be base64 of at least 32 random bytes \(decodes to 0 byte/);
    expect(stderr).toMatch(/RATE_FILE: the bundled sample rates are refused in production/);
    // The development Redis URL: the default user, which every app could share.
    expect(stderr).toMatch(/REDIS_URL: must name this app's own Redis user in production .*never the default user/);
    expect(stderr).not.toMatch(/at .*\.ts:\d+/);
  });

  /** The test's database, Redis prefix and local ports: a run that is not refused boots and listens. */
  const listenLocally = () => {
    const base = fixture.env();
    return {
      DATABASE_URL: base.DATABASE_URL!,
      DATABASE_SCHEMA: base.DATABASE_SCHEMA!,
      REDIS_URL: acl.urlOf('payment-redirect'),
      REDIS_PREFIX: acl.prefix,
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: '0',
    };
  };

  // Issue 22: each of these booted and reported ready in production.
  it('refuses a loopback PUBLIC_URL written IPv4-mapped, a test chain and a byte copy of the sample rates at another path', async () => {
    const rateFile = join(dir, 'copied-rates.json');
    copyFileSync(SAMPLE_RATE_FILE, rateFile);
    const run = runAsImage({
      ...listenLocally(),
      PUBLIC_URL: 'https://[::ffff:7f00:1]',
      CHAIN_ID: '31337',
      RATE_SOURCE: 'file',
      RATE_FILE: rateFile,
      ...fromFiles({ ADDRESS_IN_KEYS: `p1:${randomBytes(32).toString('base64')}` }),
    });
    expect(await bootOutcome(run)).toBe(1);
    const { stderr } = run.output();
    expect(stderr).toMatch(/PUBLIC_URL: .*loopback address/);
    expect(stderr).toMatch(/CHAIN_ID: 31337 is not Polygon PoS \(137\)/);
    expect(stderr).toMatch(/RATE_FILE: the bundled sample rates are refused in production/);
  });

  // Issue 35: a name that resolves to loopback passed, being a name; one that resolves nowhere too.
  it.each([
    ['https://127.0.0.1.nip.io', /PUBLIC_URL: .*127\.0\.0\.1\.nip\.io resolves to 127\.0\.0\.1: loopback address/],
    ['https://localhost.localdomain', /PUBLIC_URL: .*localhost\.localdomain resolves to 127\.0\.0\.1: loopback address/],
    ['https://pay.gateway.invalid', /PUBLIC_URL: its host pay\.gateway\.invalid does not resolve/],
  ])('refuses PUBLIC_URL=%s, resolved at boot', async (publicUrl, reason) => {
    const rateFile = join(dir, 'resolved-rates.json');
    writeFileSync(rateFile, JSON.stringify({ base: 'USD', rates: { USD: '1', EUR: '0.5' } }));
    const run = runAsImage({
      ...listenLocally(),
      PUBLIC_URL: publicUrl,
      RATE_SOURCE: 'file',
      RATE_FILE: rateFile,
      ...fromFiles({ ADDRESS_IN_KEYS: `p1:${randomBytes(32).toString('base64')}` }),
    });
    expect(await bootOutcome(run)).toBe(1);
    expect(run.output().stderr).toMatch(reason);
  });

  it('refuses MoonPay test keys unless test mode is allowed, and an 8-character webhook key, naming the settings and no value', async () => {
    const shortKey = 'wk8chars';
    const rateFile = join(dir, 'own-rates.json');
    writeFileSync(rateFile, JSON.stringify({ base: 'USD', rates: { USD: '1', EUR: '0.5' } }));
    const run = runAsImage({
      ...listenLocally(),
      PUBLIC_URL: 'https://pay.example.org',
      RATE_SOURCE: 'file',
      RATE_FILE: rateFile,
      ...fromFiles({
        ADDRESS_IN_KEYS: `p1:${randomBytes(32).toString('base64')}`,
        PROVIDER_MOONPAY_API_KEY: MOONPAY.API_KEY,
        PROVIDER_MOONPAY_SECRET_KEY: MOONPAY.SECRET_KEY,
        PROVIDER_MOONPAY_WEBHOOK_KEY: shortKey,
      }),
    });
    expect(await bootOutcome(run)).toBe(1);
    const { stderr } = run.output();
    expect(stderr).toMatch(/PROVIDER_MOONPAY_\*: MoonPay's credentials select its test mode .*ALLOW_PROVIDER_TEST_MODE=true/);
    expect(stderr).toMatch(/PROVIDER_MOONPAY_WEBHOOK_KEY: at least 32 characters in production/);
    for (const secret of [shortKey, MOONPAY.SECRET_KEY]) expect(stderr).not.toContain(secret);
  });
});
