import { generateKeyPairSync } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import {
  callbackAllowedCidrsSettings,
  loadConfig,
  parseCallbackAllowedCidrs,
  parseCallbackPublicKeys,
  parseCallbackSigningKeys,
} from '../src';

function ed25519() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    private: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    privatePem: (privateKey.export({ format: 'pem', type: 'pkcs8' }) as string).replaceAll('\n', '\\n'),
    public: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    publicPem: (publicKey.export({ format: 'pem', type: 'spki' }) as string).replaceAll('\n', '\\n'),
  };
}

const parsed = <T>(parse: (value: string, problems: string[]) => T, value: string) => {
  const problems: string[] = [];
  const result = parse(value, problems);
  return { result, problems };
};

describe('settings two apps must agree on, parsed once', () => {
  it('CALLBACK_ALLOWED_CIDRS: the ranges, each checked by the production rule', () => {
    expect(loadConfig(Type.Object(callbackAllowedCidrsSettings), {})).toEqual({ CALLBACK_ALLOWED_CIDRS: '' });
    expect(parsed((v, p) => parseCallbackAllowedCidrs(v, true, p), ' 10.20.0.0/16 ,, fd12:3456::/32 ')).toEqual({
      result: ['10.20.0.0/16', 'fd12:3456::/32'],
      problems: [],
    });
    expect(parsed((v, p) => parseCallbackAllowedCidrs(v, true, p), '127.0.0.0/8').problems).toEqual([
      expect.stringMatching(/^CALLBACK_ALLOWED_CIDRS: 127\.0\.0\.0\/8 lets callbacks reach .*refused in production$/),
    ]);
    expect(parsed((v, p) => parseCallbackAllowedCidrs(v, false, p), '127.0.0.0/8').problems).toEqual([]);
    expect(parsed((v, p) => parseCallbackAllowedCidrs(v, false, p), 'localhost').problems).toEqual([
      expect.stringMatching(/not a CIDR range/),
    ]);
  });

  it('CALLBACK_SIGNING_KEYS: Ed25519 private keys as kid:key (base64 PKCS#8 or one-line PEM), newest first', () => {
    const [newer, older] = [ed25519(), ed25519()];
    const { result, problems } = parsed(parseCallbackSigningKeys, `k2:${newer.privatePem},k1:${older.private}`);
    expect(problems).toEqual([]);
    expect(result.map((key) => [key.keyId, key.key.asymmetricKeyType, key.key.type])).toEqual([
      ['k2', 'ed25519', 'private'],
      ['k1', 'ed25519', 'private'],
    ]);
  });

  it('CALLBACK_PUBLIC_KEYS: the public halves, in the same list format; a private half is refused, not converted', () => {
    const pair = ed25519();
    const { result, problems } = parsed(parseCallbackPublicKeys, `k2:${pair.publicPem},k1:${pair.public}`);
    expect(problems).toEqual([]);
    expect(result.map((key) => [key.kid, key.key.type])).toEqual([
      ['k2', 'public'],
      ['k1', 'public'],
    ]);
    expect(parsed(parseCallbackPublicKeys, `k1:${pair.private}`).problems).toEqual([
      'CALLBACK_PUBLIC_KEYS: k1 is a private key; wallet-control must only get the public half',
    ]);
    expect(parsed(parseCallbackPublicKeys, `k1:${pair.privatePem}`).problems).toEqual([
      'CALLBACK_PUBLIC_KEYS: k1 is a private key; wallet-control must only get the public half',
    ]);
    expect(parsed(parseCallbackPublicKeys, '').result).toEqual([]);
  });

  it.each<[string, (value: string, problems: string[]) => unknown, string, string[]]>([
    ['a private list with no key', parseCallbackSigningKeys, ' , ', ['CALLBACK_SIGNING_KEYS: at least one key is required']],
    [
      'an entry without a kid',
      parseCallbackSigningKeys,
      'nokid',
      ['CALLBACK_SIGNING_KEYS: every entry must be kid:key with a kid of letters, digits, _ or - (at most 32)'],
    ],
    [
      'a kid of 33 characters',
      parseCallbackPublicKeys,
      `${'k'.repeat(33)}:${ed25519().public}`,
      ['CALLBACK_PUBLIC_KEYS: every entry must be kid:key with a kid of letters, digits, _ or - (at most 32)'],
    ],
    [
      'a key that is not Ed25519',
      parseCallbackSigningKeys,
      'k1:bm90IGEga2V5',
      ['CALLBACK_SIGNING_KEYS: key k1 is not an Ed25519 private key (PEM or base64 PKCS#8)'],
    ],
    [
      'a public key that is not one',
      parseCallbackPublicKeys,
      'k1:bm90IGEga2V5',
      ['CALLBACK_PUBLIC_KEYS: k1 is not an Ed25519 public key (PEM or base64 SPKI)'],
    ],
  ])('refuses %s, naming the setting', (_what, parse, value, problems) => {
    expect(parsed(parse, value).problems).toEqual(problems);
  });

  it('refuses a kid twice, in either list', () => {
    const pair = ed25519();
    expect(parsed(parseCallbackSigningKeys, `k1:${pair.private},k1:${ed25519().private}`).problems).toEqual([
      'CALLBACK_SIGNING_KEYS: key ids must be unique',
    ]);
    expect(parsed(parseCallbackPublicKeys, `k1:${pair.public},k1:${ed25519().public}`).problems).toEqual([
      'CALLBACK_PUBLIC_KEYS: key ids must be unique',
    ]);
  });
});
