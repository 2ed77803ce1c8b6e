import {
  createPublicClient,
  createWalletClient,
  http,
  keccak256,
  parseAbi,
  parseEventLogs,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { anvilAccounts, startAnvil, type RunningAnvil } from '@gateway/testkit';
import {
  cancelAuthorizationTypes,
  defineLocalChain,
  deployTestUsdc,
  encodeTransferWithAuthorization,
  mintTestUsdc,
  randomAuthorizationNonce,
  readTokenDomain,
  signTransferAuthorization,
  splitSignature,
  transferWithAuthorizationTypes,
  usdcAbi,
  type TokenDomain,
  type TransferAuthorization,
} from '../src/token';

// TestUSDC functions beyond what the gateway itself calls on real USDC.
const testUsdcExtraAbi = parseAbi([
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function nonces(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function symbol() view returns (string)',
  'function PERMIT_TYPEHASH() view returns (bytes32)',
  'function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns (bytes32)',
  'function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() view returns (bytes32)',
  'function CANCEL_AUTHORIZATION_TYPEHASH() view returns (bytes32)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
]);

const USDC = 1_000_000n;

describe('TestUSDC EIP-3009 / EIP-2612 on anvil', () => {
  let anvil: RunningAnvil;
  let token: Address;
  let domain: TokenDomain;
  let publicClient: ReturnType<typeof createLocalPublicClient>;
  let relayerClient: ReturnType<typeof createLocalWalletClient>;
  // A fresh key that never holds native currency: EIP-3009 must let it move USDC anyway.
  const holder = privateKeyToAccount(generatePrivateKey());
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  const relayer = privateKeyToAccount(anvilAccounts[1].privateKey);

  function createLocalPublicClient() {
    return createPublicClient({
      chain: defineLocalChain(anvil),
      transport: http(anvil.rpcUrl, { retryCount: 0 }),
      pollingInterval: 100,
    });
  }

  function createLocalWalletClient(account: LocalAccount) {
    return createWalletClient({
      account,
      chain: defineLocalChain(anvil),
      transport: http(anvil.rpcUrl, { retryCount: 0 }),
      pollingInterval: 100,
    });
  }

  beforeAll(async () => {
    anvil = await startAnvil();
    publicClient = createLocalPublicClient();
    relayerClient = createLocalWalletClient(relayer);
    const deployerKey = anvilAccounts[0].privateKey;
    token = await deployTestUsdc({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, deployerKey });
    await mintTestUsdc({
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      token,
      ownerKey: deployerKey,
      to: holder.address,
      amount: 1_000n * USDC,
    });
    domain = await readTokenDomain(publicClient, token);
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  async function usdcBalance(owner: Address): Promise<bigint> {
    return publicClient.readContract({ address: token, abi: usdcAbi, functionName: 'balanceOf', args: [owner] });
  }

  async function allowance(owner: Address, spender: Address): Promise<bigint> {
    return publicClient.readContract({ address: token, abi: testUsdcExtraAbi, functionName: 'allowance', args: [owner, spender] });
  }

  async function latestTimestamp(): Promise<bigint> {
    return (await publicClient.getBlock()).timestamp;
  }

  async function authorization(value: bigint, overrides: Partial<TransferAuthorization> = {}): Promise<TransferAuthorization> {
    return {
      from: holder.address,
      to: payee,
      value,
      validAfter: 0n,
      validBefore: (await latestTimestamp()) + 3_600n,
      nonce: randomAuthorizationNonce(),
      ...overrides,
    };
  }

  async function relay(data: Hex) {
    const hash = await relayerClient.sendTransaction({ to: token, data });
    return publicClient.waitForTransactionReceipt({ hash });
  }

  async function signAndEncode(message: TransferAuthorization): Promise<Hex> {
    return encodeTransferWithAuthorization(message, await signTransferAuthorization(holder, domain, message));
  }

  it('reads the EIP-712 domain from the token and the node', () => {
    expect(domain).toEqual({ name: 'USD Coin', version: '2', chainId: 137, verifyingContract: token });
  });

  it('looks like USDC: 6 decimals, symbol USDC, the standard typehashes', async () => {
    type TypehashGetter = `${'PERMIT' | 'TRANSFER_WITH_AUTHORIZATION' | 'RECEIVE_WITH_AUTHORIZATION' | 'CANCEL_AUTHORIZATION'}_TYPEHASH`;
    const read = (functionName: TypehashGetter) => publicClient.readContract({ address: token, abi: testUsdcExtraAbi, functionName });
    expect(await publicClient.readContract({ address: token, abi: usdcAbi, functionName: 'decimals' })).toBe(6);
    expect(await publicClient.readContract({ address: token, abi: testUsdcExtraAbi, functionName: 'symbol' })).toBe('USDC');
    expect(await read('PERMIT_TYPEHASH')).toBe(
      keccak256(toHex('Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)')),
    );
    expect(await read('TRANSFER_WITH_AUTHORIZATION_TYPEHASH')).toBe(
      keccak256(
        toHex('TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)'),
      ),
    );
    expect(await read('RECEIVE_WITH_AUTHORIZATION_TYPEHASH')).toBe(
      keccak256(
        toHex('ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)'),
      ),
    );
    expect(await read('CANCEL_AUTHORIZATION_TYPEHASH')).toBe(keccak256(toHex('CancelAuthorization(address authorizer,bytes32 nonce)')));
  });

  it('moves exactly the authorized amount when a relayer submits the holder signature and pays the gas', async () => {
    const message = await authorization(12_345_678n);
    const data = await signAndEncode(message);
    const before = {
      holder: await usdcBalance(holder.address),
      payee: await usdcBalance(payee),
      relayer: await usdcBalance(relayer.address),
      relayerNative: await publicClient.getBalance({ address: relayer.address }),
    };

    const receipt = await relay(data);

    expect(receipt.status).toBe('success');
    expect(await usdcBalance(holder.address)).toBe(before.holder - message.value);
    expect(await usdcBalance(payee)).toBe(before.payee + message.value);
    expect(await usdcBalance(relayer.address)).toBe(before.relayer);
    expect(await publicClient.getBalance({ address: holder.address })).toBe(0n);
    expect(await publicClient.getBalance({ address: relayer.address })).toBe(
      before.relayerNative - receipt.gasUsed * receipt.effectiveGasPrice,
    );
    const events = parseEventLogs({ abi: usdcAbi, logs: receipt.logs });
    expect(events.map((event) => [event.eventName, event.args])).toEqual([
      ['AuthorizationUsed', { authorizer: holder.address, nonce: message.nonce }],
      ['Transfer', { from: holder.address, to: payee, value: message.value }],
    ]);
    expect(
      await publicClient.readContract({
        address: token,
        abi: usdcAbi,
        functionName: 'authorizationState',
        args: [holder.address, message.nonce],
      }),
    ).toBe(true);
  });

  it('rejects a reused nonce', async () => {
    const data = await signAndEncode(await authorization(1n * USDC));
    await relay(data);
    await expect(relay(data)).rejects.toThrow(/authorization is used or canceled/);
  });

  it('rejects an authorization whose validBefore has passed', async () => {
    const data = await signAndEncode(await authorization(1n * USDC, { validBefore: await latestTimestamp() }));
    await expect(relay(data)).rejects.toThrow(/authorization is expired/);
  });

  it('rejects an authorization before its validAfter', async () => {
    const data = await signAndEncode(await authorization(1n * USDC, { validAfter: (await latestTimestamp()) + 3_600n }));
    await expect(relay(data)).rejects.toThrow(/authorization is not yet valid/);
  });

  it('rejects a transfer signed by someone other than `from`', async () => {
    const message = await authorization(1n * USDC);
    const impostor = privateKeyToAccount(generatePrivateKey());
    const signature = await impostor.signTypedData({
      domain,
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    await expect(relay(encodeTransferWithAuthorization(message, splitSignature(signature)))).rejects.toThrow(/invalid signature/);
  });

  it('refuses to sign a transfer from an address the key does not control', async () => {
    await expect(signTransferAuthorization(relayer, domain, await authorization(1n))).rejects.toThrow(/cannot authorize a transfer from/);
  });

  it('blocks an authorization once the holder cancels its nonce', async () => {
    const message = await authorization(2n * USDC);
    const data = await signAndEncode(message);
    const cancel = splitSignature(
      await holder.signTypedData({
        domain,
        types: cancelAuthorizationTypes,
        primaryType: 'CancelAuthorization',
        message: { authorizer: holder.address, nonce: message.nonce },
      }),
    );
    const hash = await relayerClient.writeContract({
      address: token,
      abi: testUsdcExtraAbi,
      functionName: 'cancelAuthorization',
      args: [holder.address, message.nonce, cancel.v, cancel.r, cancel.s],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(parseEventLogs({ abi: testUsdcExtraAbi, logs: receipt.logs }).map((event) => event.eventName)).toEqual([
      'AuthorizationCanceled',
    ]);
    const holderBalance = await usdcBalance(holder.address);

    await expect(relay(data)).rejects.toThrow(/authorization is used or canceled/);
    expect(await usdcBalance(holder.address)).toBe(holderBalance);
  });

  it('lets only the payee submit receiveWithAuthorization', async () => {
    const payeeAccount = privateKeyToAccount(anvilAccounts[2].privateKey);
    const message = await authorization(3n * USDC, { to: payeeAccount.address });
    const { v, r, s } = splitSignature(
      await holder.signTypedData({
        domain,
        // EIP-3009 gives receiveWithAuthorization the fields of transferWithAuthorization.
        types: { ReceiveWithAuthorization: transferWithAuthorizationTypes.TransferWithAuthorization },
        primaryType: 'ReceiveWithAuthorization',
        message,
      }),
    );
    const call = {
      address: token,
      abi: testUsdcExtraAbi,
      functionName: 'receiveWithAuthorization',
      args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, v, r, s],
    } as const;
    const payeeBefore = await usdcBalance(payeeAccount.address);

    await expect(relayerClient.writeContract(call)).rejects.toThrow(/caller must be the payee/);

    const hash = await createLocalWalletClient(payeeAccount).writeContract(call);
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await usdcBalance(payeeAccount.address)).toBe(payeeBefore + message.value);
  });

  it('accepts an EIP-2612 permit and lets the spender pull the allowance', async () => {
    const value = 4n * USDC;
    const nonce = await publicClient.readContract({
      address: token,
      abi: testUsdcExtraAbi,
      functionName: 'nonces',
      args: [holder.address],
    });
    const deadline = (await latestTimestamp()) + 3_600n;
    const { v, r, s } = splitSignature(
      await holder.signTypedData({
        domain,
        types: {
          Permit: [
            { name: 'owner', type: 'address' },
            { name: 'spender', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'nonce', type: 'uint256' },
            { name: 'deadline', type: 'uint256' },
          ],
        },
        primaryType: 'Permit',
        message: { owner: holder.address, spender: relayer.address, value, nonce, deadline },
      }),
    );
    const permitHash = await relayerClient.writeContract({
      address: token,
      abi: testUsdcExtraAbi,
      functionName: 'permit',
      args: [holder.address, relayer.address, value, deadline, v, r, s],
    });
    await publicClient.waitForTransactionReceipt({ hash: permitHash });

    expect(await allowance(holder.address, relayer.address)).toBe(value);
    expect(await publicClient.readContract({ address: token, abi: testUsdcExtraAbi, functionName: 'nonces', args: [holder.address] })).toBe(
      nonce + 1n,
    );

    const payeeBefore = await usdcBalance(payee);
    const pullHash = await relayerClient.writeContract({
      address: token,
      abi: testUsdcExtraAbi,
      functionName: 'transferFrom',
      args: [holder.address, payee, value],
    });
    await publicClient.waitForTransactionReceipt({ hash: pullHash });
    expect(await usdcBalance(payee)).toBe(payeeBefore + value);
    expect(await allowance(holder.address, relayer.address)).toBe(0n);
  });
});
