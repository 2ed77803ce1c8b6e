import { defineProvider, type ProviderDescriptor } from '../../provider-contract';
import { createMoonpayAdapter, moonpayKeysMode, moonpaySettings } from '../moonpay/moonpay-adapter';

/**
 * Interac e-Transfer (Canada, CAD), through MoonPay: MoonPay lists Interac e-Transfer among its
 * payment methods in Canada (support.moonpay.com, "MoonPay's supported payment methods") and
 * documents `paymentMethod=interac` for its widget
 * (https://dev.moonpay.com/platform/guides/pay-with-widget). Why MoonPay: of the partners this
 * gateway integrates, it alone documents both Interac and a value that preselects it in the URL
 * (Banxa's payment method ids are per partner account; Onramp.money lists Interac with no URL
 * value for it).
 *
 * It runs on the operator's MoonPay account: its settings are MoonPay's keys
 * (`PROVIDER_INTERAC_API_KEY` = the pk_, and so on: the same values, or the same secret files, as
 * `PROVIDER_MOONPAY_*`), and MoonPay's webhooks for it arrive at `/webhooks/moonpay` (`account`).
 * Setting them is the operator's opt-in, once Interac is enabled on the MoonPay account.
 * Choice: the minimum is 100 CAD (this gateway's catalogue; MoonPay documents per-method limits
 * in the dashboard).
 */
const descriptor: ProviderDescriptor<typeof moonpaySettings> = {
  hosts: { live: 'https://buy.moonpay.com', test: 'https://buy-sandbox.moonpay.com' },
  docs: 'https://dev.moonpay.com/platform/guides/pay-with-widget',
  id: 'interac',
  displayName: 'Interac e-Transfer (via MoonPay)',
  currency: 'CAD',
  minimum: '100',
  minimumCurrency: 'CAD',
  flow: 'signed-url',
  webhook: 'HMAC-SHA256, Moonpay-Signature-V2 (at /webhooks/moonpay)',
  delivers: 'native',
  settings: moonpaySettings,
  account: 'moonpay',
};

export const interac = defineProvider({
  descriptor,
  modeOf: (values, requested) => moonpayKeysMode('INTERAC', values, requested),
  create: (values, context) => createMoonpayAdapter(descriptor, values, context, 'interac'),
});
