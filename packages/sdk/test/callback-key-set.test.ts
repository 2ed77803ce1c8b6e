import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { CallbackKeySet, GatewayClient, KEY_REFETCH_INTERVAL_MS, publicKeyToJwk, signCallback, type Ed25519PublicJwk } from '../src';

// A real HTTP server serving /.well-known/jwks.json in the shape wallet-control serves it
// ({"keys": [<Ed25519 JWK with kid, use and alg>, …]}, newest first), fetched by the SDK's own client.
// The clock is injected: a minute passes by moving it, never by sleeping.
const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';
const URL_SENT = `https://shop.example/ipn?order_id=7&value_coin=25&value_forwarded_coin=24.75&address_out=${PAYOUT}`;
const T0 = 1_700_000_000;

const pair = () => generateKeyPairSync('ed25519');
const [k1, k2, k3, k4, intruder] = [pair(), pair(), pair(), pair(), pair()];
const jwk = (key: { publicKey: KeyObject }, kid: string): Ed25519PublicJwk => publicKeyToJwk(key.publicKey, kid);

let server: Server;
let served: Ed25519PublicJwk[] = [];
let fetches = 0;
let now = T0 * 1000;
let client: GatewayClient;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith('/.well-known/jwks.json')) {
      fetches += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: served }));
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  client = new GatewayClient({ baseUrl: `http://127.0.0.1:${port}`, paymentUrl: `http://127.0.0.1:${port}` });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  fetches = 0;
  now = T0 * 1000;
});

const keySet = (pinned: Ed25519PublicJwk[]) =>
  new CallbackKeySet({ pinned, fetchServedKeys: () => client.callbackPublicKeys(), clock: () => now });

/** A callback as the callback-worker signs it: one v1 and one v2 per signing key, newest first, at the clock's time. */
const callback = (...signers: Array<{ privateKey: KeyObject }>) => {
  const timestamp = Math.floor(now / 1000);
  return {
    url: URL_SENT,
    header: signCallback({ url: URL_SENT, deliveryId: 'd-1', privateKeys: signers.map((s) => ({ key: s.privateKey })), timestamp }),
    deliveryId: 'd-1',
    payoutAddress: PAYOUT,
    expectedAmount: '24.75',
    now: timestamp,
  };
};

it('never fetches for a callback signed by a key it knows', async () => {
  served = [jwk(k1, 'k1')];
  const keys = keySet([jwk(k1, 'k1')]);
  for (let i = 0; i < 5; i += 1) {
    expect(await keys.verify(callback(k1))).toMatchObject({ ok: true, scheme: 'v2', keyIds: ['k1'] });
    now += KEY_REFETCH_INTERVAL_MS;
  }
  expect(fetches).toBe(0);
});

it('fetches once for an unknown key, and not for a second unknown key within the minute, which fails with a clear reason', async () => {
  served = [jwk(k1, 'k1')];
  const keys = keySet([jwk(k1, 'k1')]);
  expect(await keys.verify(callback(intruder))).toEqual({
    ok: false,
    reason: 'unknown_key',
    message: 'signed by a key the gateway does not serve: not a callback of this gateway',
  });
  expect(fetches).toBe(1);

  now += KEY_REFETCH_INTERVAL_MS - 1_000;
  expect(await keys.verify(callback(pair()))).toEqual({
    ok: false,
    reason: 'unknown_key_refetch_limited',
    message: expect.stringMatching(/^signed by a key this shop has not seen; the gateway's keys were fetched less than 60 s ago/),
  });
  expect(fetches).toBe(1);

  // A minute after the fetch, the next unknown key may fetch again.
  now += 1_000;
  expect(await keys.verify(callback(intruder))).toMatchObject({ ok: false, reason: 'unknown_key' });
  expect(fetches).toBe(2);
});

it('shares one fetch between callbacks that arrive together with unknown keys', async () => {
  served = [jwk(k1, 'k1')];
  const keys = keySet([jwk(k1, 'k1')]);
  const answers = await Promise.all([keys.verify(callback(intruder)), keys.verify(callback(intruder)), keys.verify(callback(intruder))]);
  expect(answers.map((answer) => answer.ok)).toEqual([false, false, false]);
  expect(fetches).toBe(1);
});

it('accepts a rotated key after one fetch: the new kid is published and signs beside the key the shop pinned', async () => {
  const keys = keySet([jwk(k1, 'k1')]);
  // The rotation: k2 is published first (newest first) and both keys sign.
  served = [jwk(k2, 'k2'), jwk(k1, 'k1')];
  expect(await keys.verify(callback(k2, k1))).toMatchObject({ ok: true, keyIds: ['k1', 'k2'] });
  expect(fetches).toBe(1);
  expect(keys.keyIds).toEqual(['k1', 'k2']);

  // Then the gateway signs with k2 alone: known, no fetch.
  now += 10_000;
  expect(await keys.verify(callback(k2))).toMatchObject({ ok: true, keyIds: ['k2'] });
  expect(fetches).toBe(1);
});

it('never trusts a served key that no trusted key signed beside: what an intruder on the API host would serve', async () => {
  const keys = keySet([jwk(k1, 'k1')]);
  served = [jwk(intruder, 'k9'), jwk(k1, 'k1')];
  expect(await keys.verify(callback(intruder))).toEqual({
    ok: false,
    reason: 'unknown_key',
    message:
      'signed by k9, which the gateway serves but no key this shop trusts signed beside it: confirm it with the operator and pin it (pinnedCallbackKeys)',
  });
  expect(keys.keyIds).toEqual(['k1']);
});

it('retires a key the gateway no longer serves, and refuses callbacks signed by it alone', async () => {
  const keys = keySet([jwk(k3, 'k3')]);
  // The shop missed the rotation: k3 was retired, k4 signs alone.
  served = [jwk(k4, 'k4')];
  expect(await keys.verify(callback(k4))).toMatchObject({
    ok: false,
    reason: 'unknown_key',
    message: expect.stringMatching(/^signed by k4, which the gateway serves/),
  });
  expect(keys.retiredKeyIds).toEqual(['k3']);
  expect(keys.keyIds).toEqual([]);
  // A callback signed with the retired key (replayed, or by whoever holds a key retired because it leaked): refused, nothing fetched.
  expect(await keys.verify(callback(k3))).toEqual({
    ok: false,
    reason: 'retired_key',
    message: 'signed only by a key the gateway no longer serves (retired by a rotation)',
  });
  expect(fetches).toBe(1);
});

it('keeps answering with the keys it has when the served set cannot be fetched', async () => {
  const keys = new CallbackKeySet({
    pinned: [jwk(k1, 'k1')],
    fetchServedKeys: () => new GatewayClient({ baseUrl: 'http://127.0.0.1:1', paymentUrl: 'http://127.0.0.1:1' }).callbackPublicKeys(),
    clock: () => now,
  });
  expect(await keys.verify(callback(k2, k1))).toMatchObject({ ok: true, keyIds: ['k1'] });
  expect(await keys.verify(callback(k2))).toMatchObject({ ok: false, reason: 'unknown_key_refetch_limited' });
  expect(keys.keyIds).toEqual(['k1']);
});

it('refuses at once, without a fetch, what is wrong whatever the key', async () => {
  served = [jwk(k1, 'k1')];
  const keys = keySet([jwk(k1, 'k1')]);
  expect(await keys.verify({ ...callback(k1), payoutAddress: '0x0000000000000000000000000000000000000001' })).toMatchObject({
    ok: false,
    reason: 'address_out_mismatch',
    message: 'address_out is not your payout address: the money went elsewhere',
  });
  expect(await keys.verify({ ...callback(k1), now: T0 + 3_600 })).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance' });
  expect(await keys.verify({ ...callback(k1), header: 'nonsense' })).toMatchObject({ ok: false, reason: 'malformed_header' });
  expect(fetches).toBe(0);
});
