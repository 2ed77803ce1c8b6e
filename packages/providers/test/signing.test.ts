import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, verify } from 'node:crypto';
import { hmacSha256, safeEqual, sha256, sha512, singleHeader, withinTolerance } from '../src/support/signing';
import { importEs256PrivateKey, signEs256Jwt, verifyDetachedJws, importPublicJwk } from '../src/support/jose-tokens';

const openssl = (args: string[], input: string) => execFileSync('openssl', args, { input }).toString('utf8').trim().split(/\s+/).pop()!;

describe('digests and MACs, against openssl', () => {
  it('HMAC-SHA256 in hex and base64 (RFC 4231 case 2 as well)', () => {
    expect(hmacSha256('Jefe', 'what do ya want for nothing?', 'hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    const message = '1538054050234GET/index/rampPageBuy?appId=a&b=c';
    expect(hmacSha256('k3y', message, 'hex')).toBe(openssl(['dgst', '-sha256', '-hmac', 'k3y'], message));
    expect(hmacSha256('k3y', message, 'base64')).toBe(
      execFileSync('openssl', ['dgst', '-sha256', '-hmac', 'k3y', '-binary'], { input: message }).toString('base64'),
    );
  });
  it('SHA-256 and SHA-512', () => {
    expect(sha256('abc', 'hex')).toBe(openssl(['dgst', '-sha256'], 'abc'));
    expect(sha512('abc', 'hex')).toBe(openssl(['dgst', '-sha512'], 'abc'));
  });
});

describe('safeEqual', () => {
  it('is true only for equal values, false for another length', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual(Buffer.from('x'), 'x')).toBe(true);
  });
});

describe('withinTolerance', () => {
  const now = 1_700_000_000_000;
  it('accepts a timestamp within the allowance either side, in seconds or milliseconds', () => {
    expect(withinTolerance(1_700_000_000 - 300, 'seconds', now, 300)).toBe(true);
    expect(withinTolerance(1_700_000_000 + 300, 'seconds', now, 300)).toBe(true);
    expect(withinTolerance(String(now - 299_999), 'milliseconds', now, 300)).toBe(true);
  });
  it('refuses an old one, a future one, and anything not a plain integer', () => {
    expect(withinTolerance(1_700_000_000 - 301, 'seconds', now, 300)).toBe(false);
    expect(withinTolerance(1_700_000_000 + 301, 'seconds', now, 300)).toBe(false);
    for (const bad of ['', '1e12', '-5', '17000000.5', ' 1700000000', 'NaN']) expect(withinTolerance(bad, 'seconds', now, 300)).toBe(false);
  });
});

describe('singleHeader', () => {
  it('takes one value; a header sent twice is no signature', () => {
    expect(singleHeader({ 'x-sig': 'a' }, 'X-Sig')).toBe('a');
    expect(singleHeader({ 'x-sig': ['a', 'b'] }, 'x-sig')).toBeUndefined();
    expect(singleHeader({}, 'x-sig')).toBeUndefined();
  });
});

describe('ES256 JWTs and detached JWS', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  it('signs a JWT that node:crypto verifies independently, with kid, iat, exp, jti and sub', async () => {
    const key = await importEs256PrivateKey(pem);
    const token = await signEs256Jwt({ hello: 'world' }, key, {
      keyId: 'k1',
      issuedAt: 1_700_000_000,
      lifetimeSeconds: 180,
      jwtId: 'j1',
      subject: 'widget',
    });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'ES256', typ: 'JWT', kid: 'k1' });
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toEqual({
      hello: 'world',
      iat: 1_700_000_000,
      exp: 1_700_000_180,
      jti: 'j1',
      sub: 'widget',
    });
    expect(
      verify(
        'sha256',
        Buffer.from(`${header}.${payload}`),
        { key: publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      ),
    ).toBe(true);
  });

  it('reads a private key given as a JWK too', async () => {
    const jwk = JSON.stringify(privateKey.export({ format: 'jwk' }));
    await expect(importEs256PrivateKey(jwk)).resolves.toBeDefined();
  });

  it("verifies Topper's published detached-payload example, and refuses it over another body", async () => {
    const key = await importPublicJwk(
      JSON.stringify({
        x: '7-INQ150R-MCWlj5X_wyGLRIRYAA-o8NakJiUq7gOGg',
        y: 'dM-GsyJvdDOuALE3l-U9lPL8V3gY_5BPjLH539yTdKU',
        alg: 'ES256',
        crv: 'P-256',
        kid: '15a5142e-c20f-466e-8132-234dbdae97e7',
        kty: 'EC',
      }),
      'ES256',
    );
    const jws = 'eyJhbGciOiJFUzI1NiJ9..2H0Ypm5sVzuSpgyZySdAJan05lYxctqhmO8btghFQQzkisvSlNvNWzQ1kqTPXTLP_dR4zQZrTsSsShAK51I4EQ';
    expect(await verifyDetachedJws(jws, Buffer.from('{"foo":"bar"}'), key, ['ES256'])).toBe(true);
    expect(await verifyDetachedJws(jws, Buffer.from('{"foo":"baz"}'), key, ['ES256'])).toBe(false);
    expect(await verifyDetachedJws(jws.replace('..', '.e30.'), Buffer.from('{"foo":"bar"}'), key, ['ES256'])).toBe(false);
    expect(await verifyDetachedJws(jws, Buffer.from('{"foo":"bar"}'), key, ['RS256'])).toBe(false);
  });
});
