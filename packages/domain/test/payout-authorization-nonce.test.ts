import { payoutAuthorizationNonce, type PayoutLegIdentity } from '../src';

const leg: PayoutLegIdentity = {
  chainId: 137,
  depositTxHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  depositLogIndex: 3,
  leg: 'merchant',
  generation: 0,
};

describe('the authorization nonce of a payout leg', () => {
  it('is the same whenever the same leg is planned again (a restored database meets the nonce the chain used)', () => {
    expect(payoutAuthorizationNonce({ ...leg })).toBe(payoutAuthorizationNonce(leg));
    expect(payoutAuthorizationNonce({ ...leg, depositTxHash: leg.depositTxHash.toUpperCase().replace('0X', '0x') })).toBe(
      payoutAuthorizationNonce(leg),
    );
  });

  it('never changes between versions: a gateway upgraded after its backup must derive what the one before it used', () => {
    expect(payoutAuthorizationNonce(leg)).toMatchInlineSnapshot(`"0x5a6697663b0b94cc61b79a835ee5bd212a7eaf1055d20b5ac5ed199f098d026f"`);
  });

  it('differs for every other deposit, leg and plan', () => {
    const others: PayoutLegIdentity[] = [
      { ...leg, chainId: 31337 },
      { ...leg, depositTxHash: `${leg.depositTxHash.slice(0, -1)}1` },
      { ...leg, depositLogIndex: 4 },
      { ...leg, leg: 'platform' },
      { ...leg, leg: 'affiliate' },
      { ...leg, generation: 1 },
    ];
    const nonces = new Set([leg, ...others].map(payoutAuthorizationNonce));
    expect(nonces.size).toBe(others.length + 1);
    for (const nonce of nonces) expect(nonce).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('refuses what cannot name a deposit', () => {
    expect(() => payoutAuthorizationNonce({ ...leg, depositTxHash: '0x1234' })).toThrow('not a transaction hash: 0x1234');
    expect(() => payoutAuthorizationNonce({ ...leg, depositLogIndex: -1 })).toThrow('not a log index: -1');
    expect(() => payoutAuthorizationNonce({ ...leg, depositLogIndex: 1.5 })).toThrow('not a log index: 1.5');
    expect(() => payoutAuthorizationNonce({ ...leg, generation: -1 })).toThrow('not a plan generation: -1');
  });
});
