import { randomBytes } from 'node:crypto';
import { PUBLIC_TEST_MNEMONIC, xpubFromMnemonic } from '@gateway/chain';

/** Throw-away key material for tests: fresh sealing keys each call, the public test mnemonic. */
export function testKeyEnv(): Record<string, string> {
  return {
    ADDRESS_IN_KEYS: `t1:${randomBytes(32).toString('base64')}`,
    HD_XPUB: xpubFromMnemonic(PUBLIC_TEST_MNEMONIC),
    SANDBOX_SIGNING_SECRET: randomBytes(32).toString('base64'),
  };
}
