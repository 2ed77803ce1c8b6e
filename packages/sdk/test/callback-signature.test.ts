import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import {
  CALLBACK_DELIVERY_ID_HEADER,
  CALLBACK_SIGNATURE_HEADER,
  parseSignatureHeader,
  publicKeyToJwk,
  signCallback,
  verifyCallbackSignature,
  type VerifyCallbackSignatureInput,
} from '../src';

const payoutAddress = '0x52908400098527886E0F7030069857D2E4169EE7';
const url = `https://shop.example/cb.php?order=7&value_coin=12.5&address_out=${payoutAddress}&ipn_token=tok_1`;
const t = 1_700_000_000;
// The signature mechanics below, checked on v1 headers (signed without a delivery id): v1 is
// accepted only with allowV1 (callback-trust.test.ts has the merchant's checks).
const v1 = { payoutAddress, allowV1: true, expectedAmount: false as const };

function ed25519(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

describe('callback signatures', () => {
  const current = ed25519();
  const previous = ed25519();

  it('names the headers', () => {
    expect(CALLBACK_SIGNATURE_HEADER).toBe('x-gateway-signature');
    expect(CALLBACK_DELIVERY_ID_HEADER).toBe('x-gateway-delivery-id');
  });

  it('verifies what it signs', () => {
    const header = signCallback({ url, privateKeys: [{ keyId: 'k1', key: current.privateKey }], timestamp: t });
    expect(header).toMatch(/^t=1700000000,v1=[A-Za-z0-9+/]{86}==$/);
    expect(verifyCallbackSignature({ ...v1, url, header, publicKeys: [current.publicKey], now: t })).toEqual({
      ok: true,
      timestamp: t,
      scheme: 'v1',
      addressOut: payoutAddress,
    });
  });

  it('defaults the timestamp to now', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }] });
    expect(verifyCallbackSignature({ ...v1, url, header, publicKeys: [current.publicKey] }).ok).toBe(true);
  });

  it('fails for a tampered URL', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    for (const tampered of [url.replace('12.5', '125'), `${url}&x=1`, url.replace('https:', 'http:')]) {
      expect(verifyCallbackSignature({ ...v1, url: tampered, header, publicKeys: [current.publicKey], now: t })).toEqual({
        ok: false,
        reason: 'no_matching_signature',
      });
    }
  });

  it('fails for a tampered timestamp', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    const tampered = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(verifyCallbackSignature({ ...v1, url, header: tampered, publicKeys: [current.publicKey], now: t })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('fails for the wrong key', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    expect(verifyCallbackSignature({ ...v1, url, header, publicKeys: [previous.publicKey], now: t }).ok).toBe(false);
  });

  it('accepts within the tolerance, in both directions, and not beyond', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    const at = (now: number) => verifyCallbackSignature({ ...v1, url, header, publicKeys: [current.publicKey], now });
    expect(at(t + 299).ok).toBe(true);
    expect(at(t + 300).ok).toBe(true);
    expect(at(t + 301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(at(t - 299).ok).toBe(true);
    expect(at(t - 301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyCallbackSignature({ ...v1, url, header, publicKeys: [current.publicKey], now: t + 30, toleranceSeconds: 10 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('refuses rather than accepts when the tolerance or the clock is not a number', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    const publicKeys = [current.publicKey];
    expect(verifyCallbackSignature({ ...v1, url, header, publicKeys, now: t, toleranceSeconds: Number.NaN }).ok).toBe(false);
    expect(verifyCallbackSignature({ ...v1, url, header, publicKeys, now: Number.NaN }).ok).toBe(false);
  });

  it('carries one signature per key during a rotation, and either public key verifies', () => {
    const header = signCallback({
      url,
      privateKeys: [
        { keyId: 'new', key: current.privateKey },
        { keyId: 'old', key: previous.privateKey },
      ],
      timestamp: t,
    });
    expect(parseSignatureHeader(header)?.v1).toHaveLength(2);
    expect(verifyCallbackSignature({ ...v1, url, header, publicKeys: [current.publicKey], now: t }).ok).toBe(true);
    expect(verifyCallbackSignature({ ...v1, url, header, publicKeys: [previous.publicKey], now: t }).ok).toBe(true);
    expect(verifyCallbackSignature({ ...v1, url, header, publicKeys: [ed25519().publicKey], now: t }).ok).toBe(false);
  });

  it('takes PEM and JWK keys as well as KeyObjects', () => {
    const privatePem = current.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const publicPem = current.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const header = signCallback({ url, privateKeys: [{ key: privatePem }], timestamp: t });
    const jwk = publicKeyToJwk(publicPem, 'k1');
    expect(jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: 'k1', use: 'sig', alg: 'EdDSA' });
    expect(publicKeyToJwk(current.privateKey, 'k1')).toEqual(jwk);
    for (const publicKey of [publicPem, jwk, current.publicKey]) {
      expect(verifyCallbackSignature({ ...v1, url, header, publicKeys: [publicKey], now: t }).ok).toBe(true);
    }
  });

  it('answers malformed_header for anything that is not a signature header, without throwing', () => {
    const good = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    const signature = good.slice(good.indexOf('v1='));
    const malformed: unknown[] = [
      undefined,
      '',
      ' ',
      'garbage',
      '=,=',
      signature,
      `t=${t}`,
      `t=abc,${signature}`,
      `t=${t}.5,${signature}`,
      `t=-1,${signature}`,
      `t=0${t},${signature}`,
      `t=1e9,${signature}`,
      `t=${t},t=${t},${signature}`,
      `t=${t},v1=not-base64!`,
      `t=${t},v1=${Buffer.alloc(32).toString('base64')}`,
      `t=${t},${Array.from({ length: 9 }, () => signature).join(',')}`,
      [good],
      42,
    ];
    for (const header of malformed) {
      expect(verifyCallbackSignature({ ...v1, url, header: header as string, publicKeys: [current.publicKey], now: t })).toEqual({
        ok: false,
        reason: 'malformed_header',
      });
    }
  });

  it('parses spaces and skips unknown schemes', () => {
    const good = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    const [, signature] = good.split(',');
    expect(parseSignatureHeader(`v3=future, t=${t} , ${signature}`)).toEqual({
      timestamp: t,
      v1: [signature?.slice(3)],
      v2: [],
    });
  });

  it('refuses keys that are not Ed25519 as a configuration error', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => signCallback({ url, privateKeys: [{ keyId: 'bad', key: rsa.privateKey }] })).toThrow(/bad/);
    expect(() => signCallback({ url, privateKeys: [{ key: current.publicKey }] })).toThrow(TypeError);
    expect(() => signCallback({ url, privateKeys: [] })).toThrow(RangeError);
    expect(() => verifyCallbackSignature({ ...v1, url, header: 'x', publicKeys: [rsa.publicKey], now: t })).toThrow(/Ed25519/);
  });
});

describe('v2 signatures: the delivery id is signed too', () => {
  const current = ed25519();
  const previous = ed25519();
  const deliveryId = '1b7e4a52-6f0c-4c8e-9d3a-2f1e5b7c9a01';
  const freshId = '0c9d8e7f-1a2b-4c3d-8e5f-6a7b8c9d0e1f';
  const sign = (keys = [current]) =>
    signCallback({ url, deliveryId, privateKeys: keys.map((key) => ({ key: key.privateKey })), timestamp: t });
  /** The header with only the signatures of one scheme left, as an attacker might strip it. */
  const only = (header: string, scheme: 'v1' | 'v2') =>
    header
      .split(',')
      .filter((part) => part.startsWith('t=') || part.startsWith(`${scheme}=`))
      .join(',');
  /** A merchant's check with the current key at time t: v2 required, the amount not checked here. */
  const verifyNow = (input: Pick<VerifyCallbackSignatureInput, 'header' | 'deliveryId'> & Partial<VerifyCallbackSignatureInput>) =>
    verifyCallbackSignature({ expectedAmount: false, payoutAddress, url, publicKeys: [current.publicKey], now: t, ...input });

  it('carries t, then one v1 and one v2 per key, newest key first', () => {
    const header = sign([current, previous]);
    expect(header).toMatch(/^t=1700000000(,v1=[A-Za-z0-9+/]{86}==,v2=[A-Za-z0-9+/]{86}==){2}$/);
    const parsed = parseSignatureHeader(header);
    expect(parsed?.v1).toHaveLength(2);
    expect(parsed?.v2).toHaveLength(2);
  });

  it('signs t + "." + delivery id + "." + URL', () => {
    const header = sign();
    const v2 = parseSignatureHeader(header)!.v2[0]!;
    const signed = Buffer.from(`${t}.${deliveryId}.${url}`);
    expect(verify(null, signed, current.publicKey, Buffer.from(v2, 'base64'))).toBe(true);
  });

  it('verifies v2 with the delivery id header, and returns the id it verified', () => {
    const result = verifyNow({ header: sign(), deliveryId });
    expect(result).toEqual({ ok: true, timestamp: t, scheme: 'v2', deliveryId, addressOut: payoutAddress });
  });

  it('refuses a captured callback replayed under a fresh delivery id', () => {
    const header = sign();
    for (const replayedId of [freshId, deliveryId.toUpperCase(), `${deliveryId}0`]) {
      expect(verifyNow({ header, deliveryId: replayedId })).toEqual({ ok: false, reason: 'no_matching_signature' });
    }
  });

  it('does not fall back to v1 when a v2 is present but fails', () => {
    // v1 alone would verify (it does not cover the id); the v2 beside it decides.
    const header = sign();
    expect(verifyNow({ header, deliveryId: freshId }).ok).toBe(false);
  });

  it('needs the delivery id header when the signature has a v2', () => {
    const header = sign();
    for (const missing of [undefined, '', 'a.b', 'a,b', `${deliveryId}, ${freshId}`, [deliveryId, freshId]]) {
      expect(verifyNow({ header, deliveryId: missing })).toEqual({ ok: false, reason: 'invalid_delivery_id' });
    }
    // Node's req.headers value can be passed as it is.
    expect(verifyNow({ header, deliveryId: [deliveryId] }).ok).toBe(true);
  });

  it('refuses a header without v2 (stripped, or an older gateway) unless the merchant allows v1', () => {
    const v1Only = only(sign(), 'v1');
    expect(verifyNow({ header: v1Only, deliveryId: freshId })).toEqual({
      ok: false,
      reason: 'v2_required',
    });
    expect(verifyNow({ header: v1Only, deliveryId, allowV1: true })).toEqual({
      ok: true,
      timestamp: t,
      scheme: 'v1',
      addressOut: payoutAddress,
    });
    expect(verifyNow({ header: sign(), deliveryId, allowV1: true })).toMatchObject({ ok: true, scheme: 'v2' });
  });

  it('accepts a header with v2 only (after v1 is retired)', () => {
    const v2Only = only(sign(), 'v2');
    expect(verifyNow({ header: v2Only, deliveryId })).toMatchObject({
      ok: true,
      scheme: 'v2',
    });
  });

  it('verifies v2 with either key during a rotation, and fails for a tampered URL or time', () => {
    const header = sign([current, previous]);
    for (const key of [current, previous]) {
      expect(
        verifyCallbackSignature({ expectedAmount: false, payoutAddress, url, header, deliveryId, publicKeys: [key.publicKey], now: t }).ok,
      ).toBe(true);
    }
    expect(verifyNow({ url: `${url}&x=1`, header, deliveryId }).ok).toBe(false);
    const later = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(verifyNow({ header: later, deliveryId }).ok).toBe(false);
  });

  it('refuses to sign a delivery id that could be confused with the URL', () => {
    for (const bad of ['', 'a.b', 'a,b', 'a b', 'x'.repeat(129)]) {
      expect(() => signCallback({ url, deliveryId: bad, privateKeys: [{ key: current.privateKey }], timestamp: t })).toThrow(RangeError);
    }
  });

  it('answers malformed_header for a bad v2 or too many of them', () => {
    const good = sign();
    const v2 = good.slice(good.indexOf('v2='));
    for (const header of [`t=${t},v2=not-base64!`, `t=${t},${Array.from({ length: 9 }, () => v2).join(',')}`]) {
      expect(verifyNow({ header, deliveryId })).toEqual({
        ok: false,
        reason: 'malformed_header',
      });
    }
  });
});
