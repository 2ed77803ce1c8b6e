// What a shop and its customer do against the stack: Create Wallet, USDC paid straight into the
// temporary wallet (as an on-ramp delivers it), a card typed into the sandbox's checkout.
import type { Page } from 'playwright-core';
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { defineLocalChain } from '@gateway/chain';
import type { GatewayStack } from './gateway-stack';

export interface CreatedWallet {
  address_in: string;
  polygon_address_in: Address;
  ipn_token: string;
}

/** Create Wallet for `payout` and `callback`, as a shop's plugin calls it. */
export async function createWallet(stack: GatewayStack, payout: string, callback: string): Promise<CreatedWallet> {
  const response = await fetch(`${stack.walletControlUrl}/control/wallet.php?address=${payout}&callback=${encodeURIComponent(callback)}`);
  return (await response.json()) as CreatedWallet;
}

/** A reader of the stack's local chain. */
export function chainReader(stack: GatewayStack) {
  const chain = defineLocalChain({ rpcUrl: stack.chain.rpcUrl, chainId: stack.chain.chainId });
  return createPublicClient({ chain, transport: http(stack.chain.rpcUrl, { retryCount: 0 }) });
}

/** The customer sends `amount` base units of `token` (test USDC by default) to `to`; resolves once it is mined. */
export async function customerPays(
  stack: GatewayStack,
  to: Address,
  amount: bigint,
  token = stack.token,
): Promise<{ hash: Hash; blockNumber: bigint }> {
  const chain = defineLocalChain({ rpcUrl: stack.chain.rpcUrl, chainId: stack.chain.chainId });
  const sender = createWalletClient({
    chain,
    transport: http(stack.chain.rpcUrl, { retryCount: 0 }),
    account: privateKeyToAccount(stack.customer.privateKey),
  });
  const hash = await sender.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  const { blockNumber } = await chainReader(stack).waitForTransactionReceipt({ hash, pollingInterval: 100 });
  return { hash, blockNumber };
}

/** Pays on the sandbox's checkout page with `card`, a year ahead's expiry and CVC 123. */
export async function payWithCard(page: Page, card: string): Promise<void> {
  const expiry = new Date(Date.now() + 400 * 86_400_000);
  await page.fill('input[autocomplete="cc-name"]', 'Jane Doe');
  await page.fill('input[autocomplete="cc-number"]', card);
  await page.fill(
    'input[autocomplete="cc-exp"]',
    `${String(expiry.getUTCMonth() + 1).padStart(2, '0')}/${String(expiry.getUTCFullYear() % 100).padStart(2, '0')}`,
  );
  await page.fill('input[autocomplete="cc-csc"]', '123');
  await page.click('button[type="submit"]');
}

/** The example shop's cart form posted as a browser posts it; a 303 to the gateway is not followed. */
export function postCart(shopUrl: string, form: string): Promise<Response> {
  return fetch(`${shopUrl}/checkout`, {
    method: 'POST',
    body: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
}
