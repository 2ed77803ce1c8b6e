import type { FastifyRequest } from 'fastify';
import { maskIpnToken, recordOutcome } from '@gateway/http';
import type { CreatedWallet } from '../../services/wallet-service';
import { walletControlView, type WalletControlData } from './view-model';

/**
 * What every Create Wallet route (wallet.php and the affiliate ones) answers: logged as `<what>
 * created` or `<what> returned`, and never cached, for the body holds ipn_token (it reads
 * payment-status.php) and address_in.
 */
export function answerWallet(
  request: FastifyRequest,
  reply: { header(name: string, value: string): unknown },
  outcome: CreatedWallet,
  what: string,
): WalletControlData {
  recordOutcome(request, `${what} ${outcome.created ? 'created' : 'returned'}`, { ipnToken: maskIpnToken(outcome.wallet.ipnToken) });
  reply.header('cache-control', 'no-store');
  return walletControlView(outcome.wallet);
}
