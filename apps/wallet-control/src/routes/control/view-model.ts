import type { Static } from '@sinclair/typebox';
import type { IssuedWallet } from '../../services/known-wallets';
import type { walletControlData } from './schemas';

export type WalletControlData = Static<typeof walletControlData>;

/** A temporary wallet in the wire's words (PayGate.to's field names). */
export function walletControlView(wallet: IssuedWallet): WalletControlData {
  return {
    address_in: wallet.addressIn,
    polygon_address_in: wallet.polygonAddress,
    callback_url: wallet.callbackUrl,
    ipn_token: wallet.ipnToken,
  };
}
