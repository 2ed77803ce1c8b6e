import { generateKeyPairSync } from 'node:crypto';
import { pinnedCallbackKeys, publicKeyToJwk, signCallback, unpinnedCallbackKeys, verifyCallbackSignature } from '../src';

// Issue 35: a shop that fetched the JWK set again after a failed check took whatever wallet-control
// served; code running there could serve its own key and sign "paid". Pinned keys come from the
// shop's configuration, once; a served key that is not pinned is only reported.
const gatewayKey = generateKeyPairSync('ed25519');
const nextKey = generateKeyPairSync('ed25519');
const servedByIntruder = generateKeyPairSync('ed25519');
const k1 = publicKeyToJwk(gatewayKey.publicKey, 'k1');
const k2 = publicKeyToJwk(nextKey.publicKey, 'k2');

describe('pinnedCallbackKeys', () => {
  it('takes the JWK set as /.well-known/jwks.json serves it: its JSON text, the parsed set, or its keys', () => {
    const set = { keys: [k1, k2] };
    expect(pinnedCallbackKeys(JSON.stringify(set))).toEqual([k1, k2]);
    expect(pinnedCallbackKeys(set)).toEqual([k1, k2]);
    expect(pinnedCallbackKeys([k1])).toEqual([k1]);
  });

  it('verifies callbacks signed with a pinned key, and not those of a key it does not pin', () => {
    const url =
      'https://shop.example/ipn?order_id=7&value_coin=25&value_forwarded_coin=24.75&address_out=0x52908400098527886E0F7030069857D2E4169EE7';
    const verify = (signer: typeof gatewayKey) =>
      verifyCallbackSignature({
        url,
        header: signCallback({ url, deliveryId: 'd-1', privateKeys: [{ key: signer.privateKey }], timestamp: 1_700_000_000 }),
        deliveryId: 'd-1',
        publicKeys: pinnedCallbackKeys(JSON.stringify({ keys: [k1] })),
        payoutAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
        expectedAmount: '24.75',
        now: 1_700_000_000,
      });
    expect(verify(gatewayKey).ok).toBe(true);
    expect(verify(servedByIntruder)).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it.each([
    ['{"keys": [', 'pinned callback keys: not JSON; give the JWK set as the gateway serves it at /.well-known/jwks.json'],
    ['{}', 'pinned callback keys: no keys; give the JWK set ({"keys": [...]}) as the gateway serves it at /.well-known/jwks.json'],
    ['null', 'pinned callback keys: no keys; give the JWK set ({"keys": [...]}) as the gateway serves it at /.well-known/jwks.json'],
    [
      '{"keys": []}',
      'pinned callback keys: no keys; give the JWK set ({"keys": [...]}) as the gateway serves it at /.well-known/jwks.json',
    ],
    [
      '{"keys": {}}',
      'pinned callback keys: no keys; give the JWK set ({"keys": [...]}) as the gateway serves it at /.well-known/jwks.json',
    ],
    ['{"keys": ["k1"]}', 'pinned callback keys: key 1 is not a JWK object'],
    ['{"keys": [null]}', 'pinned callback keys: key 1 is not a JWK object'],
  ])('refuses %s', (text, message) => {
    expect(() => pinnedCallbackKeys(text)).toThrow(new TypeError(message));
  });

  it('refuses a key without its own kid, a private key, and a key that is not Ed25519, naming the key', () => {
    const { kid: _kid, ...withoutKid } = k1;
    expect(() => pinnedCallbackKeys([k1, withoutKid])).toThrow(new TypeError('pinned callback keys: key 2 has no kid'));
    expect(() => pinnedCallbackKeys([{ ...k1, kid: '' }])).toThrow(new TypeError('pinned callback keys: key 1 has no kid'));
    expect(() => pinnedCallbackKeys([k1, { ...k2, kid: 'k1' }])).toThrow(
      new TypeError('pinned callback keys: kid k1 is given twice; each key has its own'),
    );
    const privateJwk = { ...gatewayKey.privateKey.export({ format: 'jwk' }), kid: 'k1' };
    expect(() => pinnedCallbackKeys([privateJwk])).toThrow(
      new TypeError('pinned callback keys: k1 is a private key; pin the public key only (the private key belongs to the gateway alone)'),
    );
    const rsa = { ...generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }), kid: 'r1' };
    expect(() => pinnedCallbackKeys([rsa])).toThrow(new TypeError('pinned callback keys: r1 is not an Ed25519 public key'));
    expect(() => pinnedCallbackKeys([{ kty: 'OKP', crv: 'Ed25519', kid: 'x1' }])).toThrow(
      new TypeError('pinned callback keys: x1 is not an Ed25519 public key'),
    );
  });
});

describe('unpinnedCallbackKeys', () => {
  it('names the served keys that are not pinned, compared by the key itself, never by its kid', () => {
    expect(unpinnedCallbackKeys([k1], [k1])).toEqual([]);
    // A rotation: the operator announces k2 beside k1.
    expect(unpinnedCallbackKeys([k2, k1], [k1])).toEqual([k2]);
    // An intruder's key under the pinned kid is not the pinned key.
    const impostor = publicKeyToJwk(servedByIntruder.publicKey, 'k1');
    expect(unpinnedCallbackKeys([impostor], [k1])).toEqual([impostor]);
    // The same key under another kid, or written with other members, is the pinned key.
    expect(unpinnedCallbackKeys([{ ...k1, kid: 'renamed', use: undefined }], [k1])).toEqual([]);
    expect(unpinnedCallbackKeys([{ ...k1, crv: 'X25519' }], [k1])).toHaveLength(1);
    expect(unpinnedCallbackKeys([{ ...k1, kty: 'EC' }], [k1])).toHaveLength(1);
    expect(unpinnedCallbackKeys([], [k1])).toEqual([]);
  });
});
