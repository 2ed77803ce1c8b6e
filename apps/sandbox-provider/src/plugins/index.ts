// The app's plugins, one file each; app.ts registers them in boot order.
export { funderWallet } from './funder-wallet';
export { sandboxCheckout } from './sandbox-checkout';
