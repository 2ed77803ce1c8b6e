import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import {
  CALLBACK_DELIVERY_ID_HEADER,
  CALLBACK_SIGNATURE_HEADER,
  parseSignatureHeader,
  publicKeyToJwk,
  signCallback,
  verifyCallbackSignature,
} from '../src';

const url = 'https://shop.example/cb.php?order=7&value_coin=12.5&ipn_token=tok_1';
const t = 1_700_000_000;

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
    expect(verifyCallbackSignature({ url, header, publicKeys: [current.publicKey], now: t })).toEqual({
      ok: true,
      timestamp: t,
    });
  });

  it('defaults the timestamp to now', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }] });
    expect(verifyCallbackSignature({ url, header, publicKeys: [current.publicKey] }).ok).toBe(true);
  });

  it('fails for a tampered URL', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    for (const tampered of [url.replace('12.5', '125'), `${url}&x=1`, url.replace('https:', 'http:')]) {
      expect(verifyCallbackSignature({ url: tampered, header, publicKeys: [current.publicKey], now: t })).toEqual({
        ok: false,
        reason: 'no_matching_signature',
      });
    }
  });

  it('fails for a tampered timestamp', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    const tampered = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(verifyCallbackSignature({ url, header: tampered, publicKeys: [current.publicKey], now: t })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('fails for the wrong key', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    expect(verifyCallbackSignature({ url, header, publicKeys: [previous.publicKey], now: t }).ok).toBe(false);
  });

  it('accepts within the tolerance, in both directions, and not beyond', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    const at = (now: number) => verifyCallbackSignature({ url, header, publicKeys: [current.publicKey], now });
    expect(at(t + 299).ok).toBe(true);
    expect(at(t + 300).ok).toBe(true);
    expect(at(t + 301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(at(t - 299).ok).toBe(true);
    expect(at(t - 301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(
      verifyCallbackSignature({ url, header, publicKeys: [current.publicKey], now: t + 30, toleranceSeconds: 10 }),
    ).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('refuses rather than accepts when the tolerance or the clock is not a number', () => {
    const header = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    const publicKeys = [current.publicKey];
    expect(verifyCallbackSignature({ url, header, publicKeys, now: t, toleranceSeconds: Number.NaN }).ok).toBe(false);
    expect(verifyCallbackSignature({ url, header, publicKeys, now: Number.NaN }).ok).toBe(false);
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
    expect(parseSignatureHeader(header)?.signatures).toHaveLength(2);
    expect(verifyCallbackSignature({ url, header, publicKeys: [current.publicKey], now: t }).ok).toBe(true);
    expect(verifyCallbackSignature({ url, header, publicKeys: [previous.publicKey], now: t }).ok).toBe(true);
    expect(verifyCallbackSignature({ url, header, publicKeys: [ed25519().publicKey], now: t }).ok).toBe(false);
  });

  it('takes PEM and JWK keys as well as KeyObjects', () => {
    const privatePem = current.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const publicPem = current.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const header = signCallback({ url, privateKeys: [{ key: privatePem }], timestamp: t });
    const jwk = publicKeyToJwk(publicPem, 'k1');
    expect(jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: 'k1', use: 'sig', alg: 'EdDSA' });
    expect(publicKeyToJwk(current.privateKey, 'k1')).toEqual(jwk);
    for (const publicKey of [publicPem, jwk, current.publicKey]) {
      expect(verifyCallbackSignature({ url, header, publicKeys: [publicKey], now: t }).ok).toBe(true);
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
      expect(
        verifyCallbackSignature({ url, header: header as string, publicKeys: [current.publicKey], now: t }),
      ).toEqual({ ok: false, reason: 'malformed_header' });
    }
  });

  it('parses spaces and skips unknown schemes', () => {
    const good = signCallback({ url, privateKeys: [{ key: current.privateKey }], timestamp: t });
    const [, signature] = good.split(',');
    expect(parseSignatureHeader(`v2=future, t=${t} , ${signature}`)).toEqual({
      timestamp: t,
      signatures: [signature?.slice(3)],
    });
  });

  it('refuses keys that are not Ed25519 as a configuration error', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => signCallback({ url, privateKeys: [{ keyId: 'bad', key: rsa.privateKey }] })).toThrow(/bad/);
    expect(() => signCallback({ url, privateKeys: [{ key: current.publicKey }] })).toThrow(TypeError);
    expect(() => signCallback({ url, privateKeys: [] })).toThrow(RangeError);
    expect(() =>
      verifyCallbackSignature({ url, header: 'x', publicKeys: [rsa.publicKey], now: t }),
    ).toThrow(/Ed25519/);
  });
});
