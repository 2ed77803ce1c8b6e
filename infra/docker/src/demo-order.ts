// The compose stack's demo order (service `demo-order`): a wallet whose callbacks go to the demo
// merchant, and the payment links a customer opens in a browser.
import { createDemoOrder } from './demo-merchant';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main(): Promise<void> {
  const links = await createDemoOrder({
    walletControlUrl: required('WALLET_CONTROL_URL'),
    paymentUrl: required('PAYMENT_URL'),
    merchantUrl: required('MERCHANT_URL'),
    order: `demo-${Date.now()}`,
  });
  console.log('Pay the demo order (25 USD) in a browser, as a customer would:');
  console.log(`  ${links.link}`);
  console.log('or let the customer choose the provider (hosted checkout):');
  console.log(`  ${links.hostedLink}`);
  console.log('  test card 4242 4242 4242 4242, any future expiry, any 3-digit CVC; the demo merchant prints the callback');
}

main().catch((error: Error) => {
  console.error(`demo order failed: ${error.message}`);
  process.exit(1);
});
