import { POLYGON_CHAIN_ID } from './production-settings';

/**
 * Polygon PoS has two USDCs: native USDC (Circle's, the one the gateway settles by default) and
 * USDC.e (bridged from Ethereum by the PoS bridge). An aggregator delivers whatever its routed
 * vendor sends, so a customer's payment can arrive in the one the gateway does not settle. The
 * chain watcher follows both; a deposit of the other one is recorded, shown and held for the
 * operator, never settled as if it were the settled token and never called back as USDC.
 */

/** Native USDC on Polygon PoS (Circle). */
export const POLYGON_NATIVE_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
/** USDC.e on Polygon PoS: USDC bridged from Ethereum by the PoS bridge ("USD Coin (PoS)"). */
export const POLYGON_BRIDGED_USDC = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';

/** What happens to a final deposit of the other USDC. */
export const OTHER_USDC_DEPOSIT_MODES = ['hold', 'forward'] as const;
export type OtherUsdcDepositMode = (typeof OTHER_USDC_DEPOSIT_MODES)[number];

/** The `coin` values of the wire: the settled token's (the spec's) and the other's. */
export type UsdcCoin = 'polygon_usdc' | 'polygon_usdc_e';

/** The value of OTHER_USDC_TOKEN_ADDRESS that turns the second token off. */
export const OTHER_USDC_NONE = 'none';

/**
 * The other USDC when OTHER_USDC_TOKEN_ADDRESS is not set: on Polygon PoS the Polygon USDC the
 * gateway does not settle; on any other chain none (a local chain names its second test token).
 */
export function defaultOtherUsdc(chainId: number, settledToken: string): string | undefined {
  if (chainId !== POLYGON_CHAIN_ID) return undefined;
  const settled = settledToken.toLowerCase();
  if (settled === POLYGON_NATIVE_USDC.toLowerCase()) return POLYGON_BRIDGED_USDC;
  if (settled === POLYGON_BRIDGED_USDC.toLowerCase()) return POLYGON_NATIVE_USDC;
  return undefined;
}

/**
 * Why this pair of tokens cannot be run, or undefined. Always: the other token is not the settled
 * one. In production on Polygon PoS: the two are Polygon's two USDCs (any other contract would be
 * counted as if it were a dollar).
 */
export function otherUsdcRefusal(chainId: number, settledToken: string, otherToken: string, production: boolean): string | undefined {
  const settled = settledToken.toLowerCase();
  const other = otherToken.toLowerCase();
  if (settled === other) return `${otherToken} is USDC_TOKEN_ADDRESS itself; name the USDC the gateway does not settle, or none`;
  if (!production || chainId !== POLYGON_CHAIN_ID) return undefined;
  const pair = new Set([POLYGON_NATIVE_USDC.toLowerCase(), POLYGON_BRIDGED_USDC.toLowerCase()]);
  if (pair.has(settled) && pair.has(other)) return undefined;
  return (
    `on Polygon PoS the two USDCs are ${POLYGON_NATIVE_USDC} (native) and ${POLYGON_BRIDGED_USDC} (USDC.e); USDC_TOKEN_ADDRESS ` +
    `and OTHER_USDC_TOKEN_ADDRESS must be these two`
  );
}

/** The wire's coin of a deposit in `token`, the settled token being `settledToken` (any case). */
export function coinOfToken(token: string | null, settledToken: string): UsdcCoin {
  return token === null || token.toLowerCase() === settledToken.toLowerCase() ? 'polygon_usdc' : 'polygon_usdc_e';
}

/** How a page names the token of a coin for a customer. */
export const COIN_NAMES: Readonly<Record<UsdcCoin, string>> = { polygon_usdc: 'USDC', polygon_usdc_e: 'USDC.e' };

/**
 * Why OTHER_USDC_DEPOSITS=forward stops the boot. Settlement signs EIP-3009 authorizations under
 * the settled token's EIP-712 domain (name, version, chainId, contract). Polygon's USDC.e
 * (UChildAdministrableERC20 behind its proxy) has transferWithAuthorization with the same
 * arguments and type hash, but its domain is (name "USD Coin (PoS)", version "1", contract, the
 * chain id as a bytes32 salt) with no chainId, its authorizationState answers an enum, and it has
 * no receiveWithAuthorization: a payout in it needs a second signer and a second payout path,
 * which this version does not have.
 */
export const OTHER_USDC_FORWARD_REFUSAL =
  'forward is not built: the other USDC (USDC.e) signs transferWithAuthorization under another EIP-712 domain (a salt instead of ' +
  'chainId), which settlement does not sign; use hold (its deposits wait for the operator, see docs/settlement.md)';
