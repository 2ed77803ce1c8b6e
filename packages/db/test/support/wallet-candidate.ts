import { randomBytes, randomUUID } from 'node:crypto';
import { callbackPathBinding } from '@gateway/domain';
import type { NewWallet } from '../../src/repositories/wallet-repository';

export const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

// Above the HD indexes a test's hand-made wallets take (0, 1, 2 …).
let hdIndex = 1000;

/** A wallet Create Wallet would insert for this URL and payout address, bound to its callback path. */
export function pathBoundCandidate(callbackUrl: string, payoutAddress: string): NewWallet {
  return {
    hdIndex: BigInt(hdIndex++),
    polygonAddress: hex(20),
    addressIn: 'sealed',
    payoutAddress,
    callbackUrl,
    dedupeKey: randomBytes(32),
    ipnToken: randomUUID(),
    keyFingerprint: 'a1b2c3d4',
    platformFeeBps: 100,
    callbackPath: callbackPathBinding(callbackUrl, { payoutAddress, affiliate: null }),
  };
}
