import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, createWalletClient, encodeAbiParameters, http as httpTransport, type Address, type Hex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import {
  defineLocalChain,
  encodeTransferWithAuthorization,
  mintTestUsdc,
  randomAuthorizationNonce,
  readTokenDomain,
  setTestUsdcBlacklisted,
  setTestUsdcPaused,
  signTransferAuthorization,
  type TestUsdcAdminOptions,
  PUBLIC_TEST_MNEMONIC,
} from '@gateway/chain';
import { anvilAccounts } from '@gateway/testkit';
import { classifyTokenRevert } from '../../src/chain/chain-errors';
import { freshAddress, SettlementFixture, USDC } from '../support/settlement-fixture';

// The classification of real viem errors, as anvil (and a node answering in geth's words) raises
// them: what settlement retries, and which token reverts it reads as "will not succeed".

jest.setTimeout(60_000);

let fixture: SettlementFixture;
let admin: TestUsdcAdminOptions;
const relayer = privateKeyToAccount(anvilAccounts[1].privateKey);
const holder = mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: 150 });

beforeAll(async () => {
  fixture = await SettlementFixture.start('chain_errors');
  admin = fixture.tokenAdmin;
  await mintTestUsdc({ ...admin, ownerKey: anvilAccounts[0].privateKey, to: holder.address, amount: 5n * USDC });
});

afterAll(async () => {
  await fixture?.close();
});

async function transfer(to: Address, value: bigint, validBefore?: bigint): Promise<Hex> {
  const { timestamp } = await fixture.rpc.getBlock();
  const authorization = {
    from: holder.address,
    to,
    value,
    validAfter: 0n,
    validBefore: validBefore ?? timestamp + 3_600n,
    nonce: randomAuthorizationNonce(),
  };
  const domain = await readTokenDomain(fixture.rpc, fixture.token);
  return encodeTransferWithAuthorization(authorization, await signTransferAuthorization(holder, domain, authorization));
}

async function estimateError(data: Hex): Promise<unknown> {
  return fixture.rpc.estimateGas({ account: relayer.address, to: fixture.token, data }).then(
    () => {
      throw new Error('the estimate went through');
    },
    (error: unknown) => error,
  );
}

describe('token reverts from eth_estimateGas', () => {
  it('names blacklisted, paused, insufficient balance and the authorization states in FiatTokenV2 words', async () => {
    const blocked = freshAddress();
    await setTestUsdcBlacklisted(admin, blocked, true);
    expect(classifyTokenRevert(await estimateError(await transfer(blocked, 1n)))).toEqual({
      revert: 'blacklisted',
      reason: 'Blacklistable: account is blacklisted',
    });
    expect(classifyTokenRevert(await estimateError(await transfer(freshAddress(), 6n * USDC)))).toEqual({
      revert: 'insufficient_balance',
      reason: 'ERC20: transfer amount exceeds balance',
    });
    const { timestamp } = await fixture.rpc.getBlock();
    expect(classifyTokenRevert(await estimateError(await transfer(freshAddress(), 1n, timestamp)))).toMatchObject({
      revert: 'authorization_expired',
    });

    const used = await transfer(freshAddress(), 1n);
    const hash = await createWalletClient({
      account: relayer,
      chain: defineLocalChain(fixture.anvil),
      transport: httpTransport(fixture.anvil.rpcUrl),
    }).sendTransaction({
      to: fixture.token,
      data: used,
    });
    await fixture.rpc.waitForTransactionReceipt({ hash });
    expect(classifyTokenRevert(await estimateError(used))).toMatchObject({ revert: 'authorization_used_or_canceled' });

    await setTestUsdcPaused(admin, true);
    try {
      expect(classifyTokenRevert(await estimateError(await transfer(freshAddress(), 1n)))).toEqual({
        revert: 'paused',
        reason: 'Pausable: paused',
      });
    } finally {
      await setTestUsdcPaused(admin, false);
    }
  });

  it('reads any other revert as one it does not know (a bad signature)', async () => {
    const data = await transfer(freshAddress(), 1n);
    // Flip a byte of s: the signature no longer recovers the holder.
    const tampered = `${data.slice(0, -2)}${data.endsWith('00') ? '01' : '00'}` as Hex;
    expect(classifyTokenRevert(await estimateError(tampered))).toMatchObject({
      revert: 'other',
      reason: expect.stringMatching(/invalid signature/),
    });
  });
});

describe('failures that are not token reverts: retried', () => {
  it('an unreachable node, a nonce too low, an underpriced replacement, a relayer without gas', async () => {
    const unreachable = createPublicClient({ transport: httpTransport('http://127.0.0.1:9', { retryCount: 0, timeout: 2_000 }) });
    expect(classifyTokenRevert(await unreachable.getBlockNumber().catch((error: unknown) => error))).toBeUndefined();

    const wallet = createWalletClient({
      account: relayer,
      chain: defineLocalChain(fixture.anvil),
      transport: httpTransport(fixture.anvil.rpcUrl),
    });
    const nonce = await fixture.rpc.getTransactionCount({ address: relayer.address });
    const tooLow = await wallet.sendTransaction({ to: relayer.address, value: 0n, nonce: nonce - 1 }).catch((error: unknown) => error);
    expect(classifyTokenRevert(tooLow)).toBeUndefined();

    const broke = privateKeyToAccount(generatePrivateKey());
    const noGas = await createWalletClient({
      account: broke,
      chain: defineLocalChain(fixture.anvil),
      transport: httpTransport(fixture.anvil.rpcUrl),
    })
      .sendTransaction({ to: relayer.address, value: 0n, gas: 21_000n })
      .catch((error: unknown) => error);
    expect(classifyTokenRevert(noGas)).toBeUndefined();
    expect(classifyTokenRevert(new Error('PostgreSQL is down'))).toBeUndefined();
  });
});

describe('a node that simulates what it is sent (eth_sendRawTransaction answered with a revert)', () => {
  let server: http.Server;
  let answer: { code: number; message: string; data?: Hex };

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ jsonrpc: '2.0', id, error: answer }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const nodeClient = () =>
    createPublicClient({ transport: httpTransport(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { retryCount: 0 }) });
  const send = () =>
    nodeClient()
      .sendRawTransaction({ serializedTransaction: '0x02f8' })
      .catch((error: unknown) => error);
  const errorString = (reason: string) => `0x08c379a0${encodeAbiParameters([{ type: 'string' }], [reason]).slice(2)}` as Hex;

  it('reads the reason from the revert data, else from the message', async () => {
    answer = { code: 3, message: 'execution reverted', data: errorString('Blacklistable: account is blacklisted') };
    expect(classifyTokenRevert(await send())).toEqual({ revert: 'blacklisted', reason: 'Blacklistable: account is blacklisted' });
    answer = { code: -32000, message: 'execution reverted: Pausable: paused' };
    expect(classifyTokenRevert(await send())).toEqual({ revert: 'paused', reason: 'Pausable: paused' });
  });

  it('leaves the refusals of a pool to the retry: nonce too low, already known, replacement underpriced', async () => {
    for (const message of ['nonce too low', 'already known', 'replacement transaction underpriced', 'transaction underpriced']) {
      answer = { code: -32000, message };
      expect(classifyTokenRevert(await send())).toBeUndefined();
    }
  });

  it('a relayer short of gas money is not a token revert, though geth and viem word it like one', async () => {
    answer = { code: -32000, message: 'gas required exceeds allowance (0)' };
    const estimated = await nodeClient()
      .estimateGas({ account: relayer.address, to: fixture.token, data: '0x' })
      .catch((error: unknown) => error);
    expect(classifyTokenRevert(estimated)).toBeUndefined();
    expect(classifyTokenRevert(await send())).toBeUndefined();
  });
});
