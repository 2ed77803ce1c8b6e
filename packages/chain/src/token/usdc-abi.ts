import { parseAbi } from 'viem';

/**
 * The part of Circle's USDC (FiatTokenV2 on Polygon) the gateway uses: watch deposits, read the
 * EIP-712 domain, forward funds with EIP-3009 signatures relayed by a gas wallet, cancel an
 * authorization that is replaced, and ask why a payout cannot succeed (blacklist, pause).
 * The local TestUSDC implements all of it (test/token-artifact.test.ts checks that).
 * `eip712Domain` (EIP-5267) is absent on the real token; callers try `version()` first.
 */
export const usdcAbi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
  'function balanceOf(address account) view returns (uint256)',
  'function decimals() view returns (uint8)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function isBlacklisted(address account) view returns (bool)',
  'function paused() view returns (bool)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);
