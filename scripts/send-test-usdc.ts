// `pnpm demo:pay <address> <amount>`: sends test USDC from the local stack's funded test account,
// as an on-ramp would after a card payment. Reads .local/stack.json (LOCAL_STATE_DIR's, when set).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, type Address, type Hash, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { parseUsdc } from '@gateway/domain';
import { defineLocalChain } from '@gateway/chain';

export async function sendTestUsdc(options: {
  rpcUrl: string;
  chainId: number;
  token: Address;
  fromKey: Hex;
  to: Address;
  amount: string;
}): Promise<Hash> {
  const chain = defineLocalChain({ rpcUrl: options.rpcUrl, chainId: options.chainId });
  const transport = http(options.rpcUrl, { retryCount: 0 });
  const wallet = createWalletClient({ account: privateKeyToAccount(options.fromKey), chain, transport });
  const hash = await wallet.writeContract({
    address: options.token,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [getAddress(options.to), parseUsdc(options.amount)],
  });
  await createPublicClient({ chain, transport }).waitForTransactionReceipt({ hash, pollingInterval: 250 });
  return hash;
}

if (require.main === module) {
  const [to, amount] = process.argv.slice(2);
  if (!to || !amount) {
    console.error('usage: pnpm demo:pay <polygon_address_in> <amount in USDC, e.g. 25.5>');
    process.exit(2);
  }
  // The stack's folder as `pnpm demo` was given it (LOCAL_STATE_DIR), so a second stack's test USDC is sent on its chain.
  const stateDir = process.env.LOCAL_STATE_DIR ?? join(__dirname, '..', '.local');
  const stack = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8'));
  sendTestUsdc({
    rpcUrl: stack.chain.rpcUrl,
    chainId: stack.chain.chainId,
    token: stack.token.address,
    fromKey: stack.testAccount.privateKey,
    to: to as Address,
    amount,
  })
    .then((hash) => console.log(`sent ${amount} test USDC to ${to}: ${hash}`))
    .catch((error: Error) => {
      console.error(`failed: ${error.message}`);
      process.exit(1);
    });
}
