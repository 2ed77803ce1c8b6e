import {
  type BaseError,
  createPublicClient,
  ExecutionRevertedError,
  createWalletClient,
  http,
  parseAbi,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { anvilAccounts, startAnvil, type RunningAnvil } from '@gateway/testkit';
import {
  defineLocalChain,
  deployTestUsdc,
  encodeCancelAuthorization,
  encodeTransferWithAuthorization,
  mintTestUsdc,
  randomAuthorizationNonce,
  readTokenDomain,
  setTestUsdcBlacklisted,
  setTestUsdcPaused,
  signCancelAuthorization,
  signTransferAuthorization,
  testUsdcAdminAbi,
  usdcAbi,
  type TestUsdcAdminOptions,
  type TokenDomain,
} from '../src/token';

const USDC = 1_000_000n;
const erc20Abi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
]);

// FiatToken v1/v2's reasons (circlefin/stablecoin-evm: Blacklistable.sol, Pausable.sol, FiatTokenV2.sol).
const BLACKLISTED = 'Blacklistable: account is blacklisted';
const PAUSED = 'Pausable: paused';

describe('TestUSDC blacklist and pause, as FiatTokenV2 has them', () => {
  let anvil: RunningAnvil;
  let token: Address;
  let domain: TokenDomain;
  let admin: TestUsdcAdminOptions;
  const deployer = privateKeyToAccount(anvilAccounts[0].privateKey);
  const relayer = privateKeyToAccount(anvilAccounts[1].privateKey);
  const holder = privateKeyToAccount(generatePrivateKey());

  const publicClient = () => createPublicClient({ chain: defineLocalChain(anvil), transport: http(anvil.rpcUrl, { retryCount: 0 }) });
  const walletOf = (account: typeof relayer) =>
    createWalletClient({ account, chain: defineLocalChain(anvil), transport: http(anvil.rpcUrl, { retryCount: 0 }) });

  beforeAll(async () => {
    anvil = await startAnvil();
    token = await deployTestUsdc({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, deployerKey: anvilAccounts[0].privateKey });
    admin = { rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, token, adminKey: anvilAccounts[0].privateKey };
    await mintTestUsdc({ ...admin, ownerKey: anvilAccounts[0].privateKey, to: holder.address, amount: 100n * USDC });
    domain = await readTokenDomain(publicClient(), token);
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  /** The revert reason of a relayed call, from eth_call (eth_estimateGas simulates the same way). */
  async function revertReason(data: Hex): Promise<string | undefined> {
    try {
      await publicClient().call({ account: relayer.address, to: token, data });
      return undefined;
    } catch (error) {
      const reverted = (error as BaseError).walk((cause) => cause instanceof ExecutionRevertedError) as ExecutionRevertedError | null;
      return reverted?.details.replace(/^execution reverted: /, '');
    }
  }

  async function transferCalldata(to: Address, value: bigint, nonce: Hex = randomAuthorizationNonce()): Promise<Hex> {
    const latest = await publicClient().getBlock();
    const authorization = { from: holder.address, to, value, validAfter: 0n, validBefore: latest.timestamp + 3_600n, nonce };
    return encodeTransferWithAuthorization(authorization, await signTransferAuthorization(holder, domain, authorization));
  }

  const isBlacklisted = (account: Address) =>
    publicClient().readContract({ address: token, abi: usdcAbi, functionName: 'isBlacklisted', args: [account] });
  const isPaused = () => publicClient().readContract({ address: token, abi: usdcAbi, functionName: 'paused' });

  it('gives the deployer the blacklister and pauser roles, and nobody else may use them', async () => {
    expect(await publicClient().readContract({ address: token, abi: testUsdcAdminAbi, functionName: 'blacklister' })).toBe(
      deployer.address,
    );
    expect(await publicClient().readContract({ address: token, abi: testUsdcAdminAbi, functionName: 'pauser' })).toBe(deployer.address);
    await expect(setTestUsdcBlacklisted({ ...admin, adminKey: anvilAccounts[1].privateKey }, holder.address, true)).rejects.toThrow(
      /Blacklistable: caller is not the blacklister/,
    );
    await expect(setTestUsdcPaused({ ...admin, adminKey: anvilAccounts[1].privateKey }, true)).rejects.toThrow(
      /Pausable: caller is not the pauser/,
    );
  });

  it('refuses an EIP-3009 transfer to or from a blacklisted account until it is cleared', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    await setTestUsdcBlacklisted(admin, payee, true);
    expect(await isBlacklisted(payee)).toBe(true);
    expect(await revertReason(await transferCalldata(payee, 1n * USDC))).toBe(BLACKLISTED);

    await setTestUsdcBlacklisted(admin, payee, false);
    expect(await isBlacklisted(payee)).toBe(false);
    expect(await revertReason(await transferCalldata(payee, 1n * USDC))).toBeUndefined();

    await setTestUsdcBlacklisted(admin, holder.address, true);
    expect(await revertReason(await transferCalldata(payee, 1n * USDC))).toBe(BLACKLISTED);
    await setTestUsdcBlacklisted(admin, holder.address, false);
  });

  it('refuses plain ERC-20 transfers and approvals of a blacklisted account', async () => {
    const blocked = privateKeyToAccount(generatePrivateKey()).address;
    await setTestUsdcBlacklisted(admin, blocked, true);
    const transfer = (to: Address) =>
      walletOf(deployer).writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, 1n] });
    await expect(transfer(blocked)).rejects.toThrow(BLACKLISTED);
    await expect(
      walletOf(deployer).writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [blocked, 1n] }),
    ).rejects.toThrow(BLACKLISTED);
    await expect(mintTestUsdc({ ...admin, ownerKey: anvilAccounts[0].privateKey, to: blocked, amount: 1n })).rejects.toThrow(BLACKLISTED);
  });

  it('moves nothing while paused (the pause reason first, as FiatToken checks it first), and everything again once unpaused', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const blocked = privateKeyToAccount(generatePrivateKey()).address;
    await setTestUsdcBlacklisted(admin, blocked, true);
    await setTestUsdcPaused(admin, true);
    expect(await isPaused()).toBe(true);
    expect(await revertReason(await transferCalldata(payee, 1n * USDC))).toBe(PAUSED);
    expect(await revertReason(await transferCalldata(blocked, 1n * USDC))).toBe(PAUSED);
    const nonce = randomAuthorizationNonce();
    const cancel = encodeCancelAuthorization(holder.address, nonce, await signCancelAuthorization(holder, domain, holder.address, nonce));
    expect(await revertReason(cancel)).toBe(PAUSED);

    await setTestUsdcPaused(admin, false);
    expect(await isPaused()).toBe(false);
    expect(await revertReason(await transferCalldata(payee, 1n * USDC))).toBeUndefined();
    expect(await revertReason(cancel)).toBeUndefined();
  });

  it('cancels an authorization with signCancelAuthorization, even for a blacklisted holder, and the transfer it covered is refused', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const nonce = randomAuthorizationNonce();
    const transfer = await transferCalldata(payee, 2n * USDC, nonce);
    await setTestUsdcBlacklisted(admin, holder.address, true);
    const cancel = encodeCancelAuthorization(holder.address, nonce, await signCancelAuthorization(holder, domain, holder.address, nonce));
    const hash = await walletOf(relayer).sendTransaction({ to: token, data: cancel });
    expect((await publicClient().waitForTransactionReceipt({ hash })).status).toBe('success');
    await setTestUsdcBlacklisted(admin, holder.address, false);

    expect(await revertReason(transfer)).toBe('FiatTokenV2: authorization is used or canceled');
    await expect(signCancelAuthorization(relayer, domain, holder.address, nonce)).rejects.toThrow(/cannot cancel an authorization of/);
  });
});
