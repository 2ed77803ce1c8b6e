import { generateKeyPairSync, sign } from 'node:crypto';
import { buildPaymentLink, parseSignatureHeader, signCallback, toEd25519PublicKey, verifyCallbackSignature } from '../src';

// The edges of the SDK's rules, each pinned by a case (found by mutation testing: `pnpm mutate`).

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const payoutAddress = '0x52908400098527886E0F7030069857D2E4169EE7';
const url = `https://shop.example/cb?order=7&address_out=${payoutAddress}`;
const t = 1_700_000_000;
const keys = [{ keyId: 'k1', key: privateKey }];
const signature = (text: string) => sign(null, Buffer.from(text, 'utf8'), privateKey).toString('base64');

describe('signCallback refuses what it cannot sign', () => {
  it.each([-1, 1.5, Number.NaN, 2 ** 53])('a timestamp of %s', (timestamp) => {
    expect(() => signCallback({ url, privateKeys: keys, timestamp })).toThrow(
      new RangeError(`timestamp must be a non-negative integer of unix seconds, got ${timestamp}`),
    );
  });

  it('signs at timestamp 0', () => {
    expect(signCallback({ url, privateKeys: keys, timestamp: 0 })).toMatch(/^t=0,v1=/);
  });

  it('names each problem', () => {
    expect(() => signCallback({ url, privateKeys: keys, deliveryId: 'a.b' })).toThrow(
      new RangeError('deliveryId must be 1 to 128 letters, digits, _ or - (a UUID)'),
    );
    expect(() => signCallback({ url, privateKeys: [] })).toThrow(new RangeError('at least one signing key is required'));
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    expect(() => signCallback({ url, privateKeys: [{ key: ec }] })).toThrow(
      new TypeError('signing key (no key id) is not an Ed25519 private key'),
    );
    expect(() => signCallback({ url, privateKeys: [{ keyId: 'k9', key: publicKey }] })).toThrow(
      new TypeError('signing key k9 is not an Ed25519 private key'),
    );
  });
});

describe('what is signed, computed here independently', () => {
  it('v1 covers "t.url" and v2 covers "t.deliveryId.url"', () => {
    expect(signCallback({ url, privateKeys: keys, deliveryId: 'd-1', timestamp: t })).toBe(
      `t=${t},v1=${signature(`${t}.${url}`)},v2=${signature(`${t}.d-1.${url}`)}`,
    );
    const v1Only = `t=${t},v1=${signature(`${t}.${url}`)}`;
    expect(
      verifyCallbackSignature({
        expectedAmount: false,
        url,
        header: v1Only,
        publicKeys: [publicKey],
        payoutAddress,
        allowV1: true,
        now: t,
      }),
    ).toMatchObject({
      ok: true,
      scheme: 'v1',
    });
  });
});

describe('parseSignatureHeader', () => {
  const one = signature(`${t}.${url}`);

  it('refuses a part without "="', () => {
    expect(parseSignatureHeader(`t=${t},v1=${one}`)).toEqual({ timestamp: t, v1: [one], v2: [] });
    expect(parseSignatureHeader(`t=${t},garbage,v1=${one}`)).toBeUndefined();
  });

  it.each(['v1', 'v2'])('takes up to eight %s signatures, not nine', (scheme) => {
    const header = (count: number) => [`t=${t}`, ...Array.from({ length: count }, () => `${scheme}=${one}`)].join(',');
    expect(parseSignatureHeader(header(8))?.[scheme as 'v1' | 'v2']).toHaveLength(8);
    expect(parseSignatureHeader(header(9))).toBeUndefined();
  });

  it('refuses a signature that only decodes to 64 bytes when its spelling is not canonical', () => {
    // The last character before "==" carries 2 bits of the signature and 4 zero bits: setting one of those bits
    // decodes to the same bytes but is not the text that was sent.
    const last = one.at(-3)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const sloppy = `${one.slice(0, -3)}${alphabet[alphabet.indexOf(last) | 1]}==`;
    expect(Buffer.from(sloppy, 'base64')).toEqual(Buffer.from(one, 'base64'));
    expect(parseSignatureHeader(`t=${t},v1=${sloppy}`)).toBeUndefined();
    expect(parseSignatureHeader(`t=${t},v1=${one.slice(0, 10)}!${one.slice(10)}`)).toBeUndefined();
  });
});

describe('verifyCallbackSignature', () => {
  it('refuses a delivery id header that is not one text', () => {
    const header = signCallback({ url, privateKeys: keys, deliveryId: '123', timestamp: t });
    const verify = (deliveryId: unknown) =>
      verifyCallbackSignature({
        expectedAmount: false,
        url,
        header,
        deliveryId: deliveryId as string,
        publicKeys: [publicKey],
        payoutAddress,
        now: t,
      });
    expect(verify('123')).toMatchObject({ ok: true, deliveryId: '123' });
    expect(verify(['123'])).toMatchObject({ ok: true, deliveryId: '123' });
    expect(verify([123])).toEqual({ ok: false, reason: 'invalid_delivery_id' });
    expect(verify(['123', '123'])).toEqual({ ok: false, reason: 'invalid_delivery_id' });
  });

  it('refuses a payoutAddress with anything around its 40 hex digits as a configuration error', () => {
    const header = signCallback({ url, privateKeys: keys, deliveryId: 'd-1', timestamp: t });
    for (const wrong of [`x${payoutAddress}`, `${payoutAddress}0`, payoutAddress.slice(0, -1)]) {
      expect(() =>
        verifyCallbackSignature({
          expectedAmount: false,
          url,
          header,
          deliveryId: 'd-1',
          publicKeys: [publicKey],
          payoutAddress: wrong,
          now: t,
        }),
      ).toThrow(
        new TypeError(
          'payoutAddress must be your payout address (0x and 40 hexadecimal characters), the one the wallet was registered with',
        ),
      );
    }
  });

  it('refuses a signed URL with two ipn_token values when the merchant gives its own', () => {
    const twice = `${url}&ipn_token=tok_1&ipn_token=tok_1`;
    const header = signCallback({ url: twice, privateKeys: keys, deliveryId: 'd-1', timestamp: t });
    const verify = (ipnToken?: string) =>
      verifyCallbackSignature({
        expectedAmount: false,
        url: twice,
        header,
        deliveryId: 'd-1',
        publicKeys: [publicKey],
        payoutAddress,
        ipnToken,
        now: t,
      });
    expect(verify()).toMatchObject({ ok: true });
    expect(verify('tok_1')).toEqual({ ok: false, reason: 'ipn_token_mismatch' });
  });

  it('names the kind of a key that is not Ed25519', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    expect(() => toEd25519PublicKey(ec)).toThrow(new TypeError('callback keys must be Ed25519, got ec'));
  });
});

describe('buildPaymentLink', () => {
  const input = { addressIn: 'k1.x', amount: '1', provider: 'sandbox', email: 'a@example.com', currency: 'USD' };

  it('names what is wrong with the payment URL', () => {
    expect(() => buildPaymentLink({ ...input, paymentUrl: 'ftp://pay.example' })).toThrow(
      new TypeError('paymentUrl must be an http(s) URL, got ftp:'),
    );
    for (const paymentUrl of ['https://pay.example/?x=1', 'https://pay.example/#top']) {
      expect(() => buildPaymentLink({ ...input, paymentUrl })).toThrow(
        new TypeError('paymentUrl must be the payment host (and optional path) without a query or fragment'),
      );
    }
  });

  it('drops every trailing slash of the path prefix', () => {
    expect(buildPaymentLink({ ...input, paymentUrl: 'https://pay.example/gateway///' })).toMatch(
      /^https:\/\/pay\.example\/gateway\/process-payment\.php\?/,
    );
  });
});
