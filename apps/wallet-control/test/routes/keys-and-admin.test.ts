import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '@gateway/config';
import { seedDelivery, seedWallet, sqlExpression } from '@gateway/app-testkit';
import { SAMPLE_RATE_FILE } from '@gateway/rates';
import { signCallback, verifyCallbackSignature } from '@usdc-card-gateway/sdk';
import { walletControlFixture } from '../support/wallet-control-fixture';

const ADMIN_TOKEN = randomBytes(32).toString('base64url');
const newKey = generateKeyPairSync('ed25519');
const oldKey = generateKeyPairSync('ed25519');
const publicKeysSetting =
  `k2:${newKey.publicKey.export({ format: 'pem', type: 'spki' }).toString()},` +
  `k1:${oldKey.publicKey.export({ format: 'der', type: 'spki' }).toString('base64')}`;

const fixture = walletControlFixture('wc_keys');
let app: FastifyInstance;

async function insertDelivery(status: 'failed' | 'delivered'): Promise<string> {
  const wallet = await seedWallet(fixture.db.pool);
  return seedDelivery(fixture.db.pool, {
    walletId: wallet.id,
    status,
    attemptCount: 19,
    nextAttemptAt: sqlExpression("now() - interval '1 day'"),
  });
}

/** `null` sends no Authorization header at all. */
function resend(id: string, token: string | null = ADMIN_TOKEN) {
  return app.inject({
    method: 'POST',
    url: `/admin/callbacks/${id}/resend`,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}

beforeAll(async () => {
  app = await fixture.build(fixture.config({ CALLBACK_PUBLIC_KEYS: publicKeysSetting, ADMIN_TOKEN }));
});

describe('callback public keys', () => {
  const payoutAddress = '0x52908400098527886E0F7030069857D2E4169EE7';
  const url = `https://shop.io/ipn?order=1&value_coin=12.5&address_out=${payoutAddress}`;
  const deliveryId = randomUUID();
  const header = signCallback({ url, deliveryId, privateKeys: [{ key: newKey.privateKey }, { key: oldKey.privateKey }] });

  it('serves the keys as PEM, newest first, and they verify callback signatures', async () => {
    const response = await app.inject({ method: 'GET', url: '/control/pubkey.php' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    const blocks = response.body.match(/-----BEGIN PUBLIC KEY-----[^-]+-----END PUBLIC KEY-----\n/g) ?? [];
    expect(blocks).toHaveLength(2);
    expect(blocks.join('')).toBe(response.body);
    expect(blocks[0]).toBe(newKey.publicKey.export({ format: 'pem', type: 'spki' }).toString());
    for (const pem of blocks)
      expect(verifyCallbackSignature({ expectedAmount: false, url, header, deliveryId, publicKeys: [pem], payoutAddress })).toMatchObject({
        ok: true,
      });
  });

  it('serves a JWK set with key ids that verifies the same signatures', async () => {
    const response = await app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    const { keys } = response.json();
    expect(keys.map((key: { kid: string }) => key.kid)).toEqual(['k2', 'k1']);
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA' });
    expect(keys[0]).not.toHaveProperty('d');
    for (const jwk of keys)
      expect(verifyCallbackSignature({ expectedAmount: false, url, header, deliveryId, publicKeys: [jwk], payoutAddress })).toMatchObject({
        ok: true,
      });
    expect(verifyCallbackSignature({ expectedAmount: false, url: `${url}0`, header, deliveryId, publicKeys: keys, payoutAddress }).ok).toBe(
      false,
    );
  });

  it('refuses a private key in CALLBACK_PUBLIC_KEYS, and production without keys', () => {
    const privatePem = newKey.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const privateDer = newKey.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    for (const material of [privatePem, privateDer]) {
      expect(() => fixture.config({ CALLBACK_PUBLIC_KEYS: `k9:${material}` })).toThrow(
        'CALLBACK_PUBLIC_KEYS: k9 is a private key; wallet-control must only get the public half',
      );
    }
    expect(() => fixture.config({ CALLBACK_PUBLIC_KEYS: 'k1:bm90IGEga2V5' })).toThrow(/k1 is not an Ed25519 public key/);
    let error: unknown;
    try {
      fixture.config({ NODE_ENV: 'production' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toContainEqual(expect.stringMatching(/^CALLBACK_PUBLIC_KEYS: required in production/));
    // Issue 22: the test chain and a copy of the sample rates elsewhere are refused here too.
    const rateFile = join(mkdtempSync(join(tmpdir(), 'wallet-control-rates-')), 'rates.json');
    copyFileSync(SAMPLE_RATE_FILE, rateFile);
    try {
      fixture.config({ NODE_ENV: 'production', CHAIN_ID: '31337', RATE_SOURCE: 'file', RATE_FILE: rateFile });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^CHAIN_ID: 31337 is not Polygon PoS \(137\)/),
        expect.stringMatching(/^RATE_FILE: the bundled sample rates are refused in production/),
      ]),
    );
  });

  it('answers 503 with the error shape when no key is configured', async () => {
    const bare = await fixture.build();
    try {
      for (const url of ['/control/pubkey.php', '/.well-known/jwks.json']) {
        const response = await bare.inject({ method: 'GET', url });
        expect(response.statusCode).toBe(503);
        expect(response.json()).toMatchObject({ status: 'error', code: 'service_unavailable' });
      }
    } finally {
      await bare.close();
    }
  });
});

describe('POST /admin/callbacks/:id/resend', () => {
  it('refuses a missing or wrong bearer token', async () => {
    const id = await insertDelivery('failed');
    for (const token of [null, '', 'wrong', `${ADMIN_TOKEN}x`]) {
      const response = await resend(id, token);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="gateway-admin"');
      expect(response.json()).toMatchObject({ status: 'error', code: 'unauthorized' });
    }
    const { rows } = await fixture.db.pool.query('SELECT status FROM callback_deliveries WHERE id = $1', [id]);
    expect(rows[0].status).toBe('failed');
  });

  it('puts a failed delivery back to pending and due now, with a new retry round', async () => {
    const id = await insertDelivery('failed');
    const response = await resend(id);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ status: 'success', delivery_id: id, delivery_status: 'pending' });
    expect(Math.abs(Date.parse(body.next_attempt_at) - Date.now())).toBeLessThan(5_000);
    const { rows } = await fixture.db.pool.query(
      'SELECT status, attempt_count, round_start_attempts, resend_count, resent_at FROM callback_deliveries WHERE id = $1',
      [id],
    );
    expect(rows[0]).toMatchObject({ status: 'pending', attempt_count: 19, round_start_attempts: 19, resend_count: 1 });
    expect(rows[0].resent_at).toBeInstanceOf(Date);
  });

  it('answers 409 for a delivery that has not failed, 404 for an unknown one and 400 for a bad id', async () => {
    const delivered = await insertDelivery('delivered');
    expect((await resend(delivered)).statusCode).toBe(409);
    expect((await resend(delivered)).json()).toMatchObject({ code: 'conflict', param: 'id' });
    expect((await resend(randomUUID())).json()).toMatchObject({ code: 'not_found' });
    expect((await resend(randomUUID())).statusCode).toBe(404);
    expect((await resend('1; DROP TABLE wallets')).json()).toMatchObject({ code: 'invalid_parameter', param: 'id' });
  });

  it('does not exist when no ADMIN_TOKEN is configured', async () => {
    const bare = await fixture.build();
    try {
      const response = await bare.inject({
        method: 'POST',
        url: `/admin/callbacks/${randomUUID()}/resend`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'not_found' });
    } finally {
      await bare.close();
    }
  });
});
