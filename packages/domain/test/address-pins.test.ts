import { affiliateWalletsDisabled, parseAddressPin, pinnedAddressRefusal } from '../src/address-pins';
import type { EvmAddress } from '../src/evm-address';

const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as EvmAddress;
const merchant = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('address pins (PAYOUT_ADDRESSES, AFFILIATE_ADDRESSES)', () => {
  it('names an entry of up to 42 characters whole, and cuts a longer one', () => {
    const badChecksum = merchant.replace('E0F', 'e0F'); // 42 characters, fails EIP-55
    const problems: string[] = [];
    parseAddressPin(`${badChecksum},${merchant}1234`, 'PAYOUT_ADDRESSES', { tokenAddress: token }, problems);
    expect(problems).toEqual([
      `PAYOUT_ADDRESSES: ${badChecksum} fails its EIP-55 checksum; copy the address again from the wallet (or send it in lower case)`,
      `PAYOUT_ADDRESSES: ${merchant}… must be a Polygon wallet address: 0x followed by 40 hexadecimal characters`,
    ]);
  });

  it('keeps the valid entries beside refused ones, in lower case', () => {
    const problems: string[] = [];
    const pin = parseAddressPin(`${merchant},0x12`, 'AFFILIATE_ADDRESSES', { tokenAddress: token }, problems);
    expect(pin).toEqual({ setting: 'AFFILIATE_ADDRESSES', addresses: new Set([merchant.toLowerCase()]) });
    expect(problems).toHaveLength(1);
  });

  it('refuses an address left out with a 403 that names the setting', () => {
    const pin = parseAddressPin(merchant, 'AFFILIATE_ADDRESSES', { tokenAddress: token }, []);
    expect(pinnedAddressRefusal('0x8ba1f109551bD432803012645Ac136ddd64DBA72', pin, 'affiliate')).toMatchObject({
      code: 'address_not_allowed',
      statusCode: 403,
      param: 'affiliate',
      message:
        "affiliate is not an address this gateway pays: it is run for its operator's own shops and pays only the addresses in " +
        'AFFILIATE_ADDRESSES',
    });
  });

  it('turned-off affiliate endpoints answer 403 and point to wallet.php', () => {
    expect(affiliateWalletsDisabled()).toMatchObject({
      code: 'affiliate_disabled',
      statusCode: 403,
      param: 'affiliate',
      message: 'affiliate wallets are turned off on this gateway (AFFILIATE_WALLETS=off); use wallet.php',
    });
  });
});
