import { privateKeyToAccount } from 'viem/accounts';
import {
  AFFILIATE_CONSENT_PURPOSE,
  affiliateConsentMessage,
  affiliateConsentRefusal,
  affiliateConsentTerms,
  type AffiliateConsentTerms,
} from '../src/affiliate-consent';
import type { EvmAddress } from '../src/evm-address';

// Anvil's first two well-known test keys: the payout address's owner and a stranger.
const owner = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const stranger = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const affiliate = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';

const terms: AffiliateConsentTerms = {
  payoutAddress: owner.address.toLowerCase(),
  affiliateAddress: affiliate.toLowerCase(),
  merchantFeeBps: 9_800,
  affiliateFeeBps: 100,
  callbackUrl: 'https://shop.io/ipn?order_id=1',
};
const pinned = { operatorPinned: true, signature: undefined };
const signedBy = async (account: typeof owner, over = terms) => account.signMessage({ message: affiliateConsentMessage(over) });
/** The 400 of a signature parameter that cannot be a signature at all. */
const badSignature = (message: string) => ({ code: 'invalid_parameter', statusCode: 400, param: 'signature', message });

describe('affiliateConsentMessage', () => {
  it('names the purpose and every term, one a line, with lower-case addresses and the API spelling of fees', () => {
    expect(affiliateConsentMessage({ ...terms, merchantFeeBps: 9_850, affiliateFeeBps: 50 })).toBe(
      [
        AFFILIATE_CONSENT_PURPOSE,
        `payout: ${owner.address.toLowerCase()}`,
        `affiliate: ${affiliate.toLowerCase()}`,
        'merchant_fee: 0.985',
        'affiliate_fee: 0.005',
        'callback: https://shop.io/ipn?order_id=1',
      ].join('\n'),
    );
  });

  it('affiliate.php: the configured share, and what it and the platform fee leave the merchant', () => {
    const request = { payoutAddress: owner.address as EvmAddress, callbackUrl: terms.callbackUrl };
    expect(affiliateConsentTerms(request, { kind: 'configured', address: affiliate as EvmAddress, affiliateFeeBps: 50 }, 100)).toEqual({
      ...terms,
      payoutAddress: owner.address,
      affiliateAddress: affiliate,
      merchantFeeBps: 9_850,
      affiliateFeeBps: 50,
    });
    const custom = { kind: 'custom' as const, address: affiliate as EvmAddress, affiliateFeeBps: 100, merchantFeeBps: 9_700 };
    expect(affiliateConsentTerms(request, custom, 100)).toMatchObject({ merchantFeeBps: 9_700, affiliateFeeBps: 100 });
  });
});

describe('affiliateConsentRefusal', () => {
  it('accepts an affiliate the operator pinned, without a signature', async () => {
    expect(await affiliateConsentRefusal(terms, pinned)).toBeUndefined();
  });

  it("accepts the payout address owner's personal_sign of the message", async () => {
    expect(await affiliateConsentRefusal(terms, { operatorPinned: false, signature: await signedBy(owner) })).toBeUndefined();
  });

  it('without a signature: 403 affiliate_consent_required, quoting the message and both ways to consent', async () => {
    for (const signature of [undefined, '']) {
      const refusal = await affiliateConsentRefusal(terms, { operatorPinned: false, signature });
      expect(refusal).toMatchObject({ code: 'affiliate_consent_required', statusCode: 403, param: 'signature' });
      expect(refusal?.message).toContain(JSON.stringify(affiliateConsentMessage(terms)));
      expect(refusal?.message).toMatch(/personal_sign/);
      expect(refusal?.message).toMatch(/AFFILIATE_ADDRESSES/);
    }
  });

  it("a stranger's signature, or the owner's over other terms: 403 affiliate_consent_invalid", async () => {
    const others: AffiliateConsentTerms[] = [
      { ...terms, merchantFeeBps: 100, affiliateFeeBps: 9_800 },
      { ...terms, affiliateAddress: stranger.address },
      { ...terms, callbackUrl: `${terms.callbackUrl}&x=1` },
    ];
    for (const signature of [await signedBy(stranger), ...(await Promise.all(others.map((other) => signedBy(owner, other))))]) {
      const refusal = await affiliateConsentRefusal(terms, { operatorPinned: false, signature });
      expect(refusal).toMatchObject({ code: 'affiliate_consent_invalid', statusCode: 403, param: 'signature' });
      expect(refusal?.message).toMatch(/another key, or over another message/);
    }
  });

  it("the affiliate's own signature over the exact message is no consent: only the payout address's owner may give its money away", async () => {
    // An affiliate with a key of its own (each other test's affiliate is a bare address): accepting
    // its signature would let the party paid by the terms consent to them, the theft of issue 22.
    const keyedAffiliate = privateKeyToAccount(`0x${'2a'.repeat(32)}`);
    const toAffiliate = { ...terms, affiliateAddress: keyedAffiliate.address.toLowerCase() };
    const refusal = await affiliateConsentRefusal(toAffiliate, {
      operatorPinned: false,
      signature: await signedBy(keyedAffiliate, toAffiliate),
    });
    expect(refusal).toMatchObject({ code: 'affiliate_consent_invalid', statusCode: 403, param: 'signature' });
  });

  it('a signature that is not one: 400, param signature, saying what a signature looks like', async () => {
    const valid = await signedBy(owner);
    const malformed = [
      valid.slice(0, -2),
      `${valid}00`,
      valid.slice(2),
      `0x${'zz'.repeat(65)}`,
      // The pattern is anchored at both ends: a genuine signature with anything before or after it is not one.
      `x${valid}`,
      `${valid}z`,
      ` ${valid}`,
    ];
    for (const signature of malformed) {
      const refusal = await affiliateConsentRefusal(terms, { operatorPinned: false, signature });
      expect(refusal).toMatchObject(
        badSignature('signature must be an EIP-191 personal_sign signature: 0x followed by 130 hexadecimal characters (65 bytes: r, s, v)'),
      );
    }
  });

  it('65 bytes that are no secp256k1 signature (v out of range): 400, saying to sign again', async () => {
    const valid = await signedBy(owner);
    const refusal = await affiliateConsentRefusal(terms, { operatorPinned: false, signature: `${valid.slice(0, -2)}05` });
    expect(refusal).toMatchObject(
      badSignature('signature is not a valid secp256k1 signature (r, s or v out of range); sign the message again'),
    );
  });

  it('says why consent is needed and how to give it, in words', async () => {
    const required = await affiliateConsentRefusal(terms, { operatorPinned: false, signature: undefined });
    expect(required?.message).toMatch(
      /^affiliate terms send part of every payment away from the payout address, so they need its owner's consent/,
    );
    const invalid = await affiliateConsentRefusal(terms, { operatorPinned: false, signature: await signedBy(stranger) });
    expect(invalid?.message).toContain(
      `Sign this exact message, lines joined by \\n, with the payout address's key: ${JSON.stringify(affiliateConsentMessage(terms))}`,
    );
  });

  it('the purpose line is a fixed text: a merchant signs it, so it never changes without a new version', () => {
    expect(AFFILIATE_CONSENT_PURPOSE).toBe('Card-to-USDC gateway: consent to affiliate terms (v1)');
    expect(affiliateConsentMessage(terms).split('\n')[0]).toBe('Card-to-USDC gateway: consent to affiliate terms (v1)');
  });
});
