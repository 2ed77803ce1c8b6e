import { erc20Abi, type Address } from 'viem';
import { waitFor } from '@gateway/testkit';
import { launchChromium, screenshot } from './support/browser';
import { startGatewayStack, type GatewayStack, closeInOrder } from './support/gateway-stack';
import { chainReader, createWallet, customerPays } from './support/customer';
import { startRecordingMerchant, type RecordingMerchant } from './support/merchant';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7' as Address;

let stack: GatewayStack;
let merchant: RecordingMerchant;

beforeAll(async () => {
  merchant = await startRecordingMerchant();
  stack = await startGatewayStack('e2e_other_usdc');
}, 150_000);

afterAll(() => closeInOrder(stack, merchant));

interface StatusDeposit {
  status: string;
  amount: string;
  coin: string;
  token_address: string;
  note: string | null;
}

it('holds USDC.e paid into a temporary wallet for the operator, says so on the receipt and the status API, and calls nobody', async () => {
  const callback = `${merchant.url}/ipn?order=usdc-e`;
  const wallet = await createWallet(stack, PAYOUT, callback);
  const started = await fetch(
    `${stack.paymentUrl}/process-payment.php?${new URLSearchParams({
      address: wallet.address_in,
      amount: '49.99',
      provider: 'moonpay',
      email: 'jane@shop.io',
      currency: 'USD',
    })}`,
    { headers: { accept: 'application/json' } },
  );
  expect(started.status).toBe(200);
  const { payment_id: paymentId } = (await started.json()) as { payment_id: string };

  const reader = chainReader(stack);
  const pay = async (token: Address, amount: bigint) => (await customerPays(stack, wallet.polygon_address_in, amount, token)).hash;
  const statusOf = async () =>
    (await (await fetch(`${stack.walletControlUrl}/control/payment-status.php?ipn_token=${wallet.ipn_token}`)).json()) as {
      status: string;
      value_coin: string;
      deposits: StatusDeposit[];
      order: { total_coin: string; state: string | null };
    };

  const txIn = await pay(stack.otherToken, 12_500_000n);
  const held = await waitFor(
    'the USDC.e deposit held for the operator',
    async () => {
      const status = await statusOf();
      return status.deposits[0]?.status === 'held_for_operator' ? status : undefined;
    },
    90_000,
  );
  expect(held).toMatchObject({ status: 'unpaid', value_coin: '0' });
  expect(held.deposits).toEqual([
    expect.objectContaining({
      status: 'held_for_operator',
      amount: '12.5',
      coin: 'polygon_usdc_e',
      token_address: stack.otherToken,
      note: expect.stringContaining('held for the gateway operator'),
    }),
  ]);

  const receipt = await (await fetch(`${stack.paymentUrl}/payment/${paymentId}`)).text();
  expect(receipt).toContain('Paid in 12.5 USDC.e: held for the operator');
  expect(receipt).toContain('the shop has not been paid yet');
  expect(receipt).toContain(txIn);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${stack.paymentUrl}/payment/${paymentId}`);
    await page.getByText('Paid in 12.5 USDC.e: held for the operator').waitFor();
    await screenshot(page, 'receipt-usdc-e-held');
  } finally {
    await browser.close();
  }

  // The temporary wallet still holds the USDC.e: nothing was moved, nobody was called.
  const balanceOf = (token: Address, owner: Address) =>
    reader.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  expect(await balanceOf(stack.otherToken, wallet.polygon_address_in)).toBe(12_500_000n);
  expect(await balanceOf(stack.otherToken, PAYOUT)).toBe(0n);

  // USDC into the same wallet is paid and called back as ever, for its own amount only.
  await pay(stack.token, 10_000_000n);
  const delivered = await waitFor('the USDC callback', async () => merchant.callbacks.find((url) => url.includes('order=usdc-e')), 90_000);
  expect(new URL(delivered).searchParams.get('value_coin')).toBe('10');
  expect(new URL(delivered).searchParams.get('coin')).toBe('polygon_usdc');
  expect(merchant.callbacks).toHaveLength(1);
  expect(await balanceOf(stack.otherToken, wallet.polygon_address_in)).toBe(12_500_000n);
  const after = await statusOf();
  // The order (49.99 USD) counts the USDC alone: 10 of it is short, so its status stays unpaid. The
  // USDC.e held apart never counts towards it.
  expect(after).toMatchObject({ status: 'unpaid', value_coin: '10', order: { total_coin: '10', state: 'underpaid' } });
  expect(after.deposits.map((deposit) => [deposit.coin, deposit.status])).toEqual([
    ['polygon_usdc', 'forwarded'],
    ['polygon_usdc_e', 'held_for_operator'],
  ]);
}, 120_000);
