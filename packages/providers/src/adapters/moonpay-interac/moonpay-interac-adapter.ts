import { MOONPAY_ANY_METHOD_FEES, MOONPAY_METHODS_PAGE, moonpayPaymentMethod } from '../moonpay/moonpay-adapter';

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
 * in the dashboard). Fees: no Interac figure of MoonPay's found, so MoonPay's span across its
 * payment methods (MOONPAY_ANY_METHOD_FEES); MoonPay's quote for the method (quote()) names the
 * real one.
 */
export const interac = moonpayPaymentMethod(
  {
    id: 'interac',
    displayName: 'Interac e-Transfer (via MoonPay)',
    currency: 'CAD',
    minimum: '100',
    minimumCurrency: 'CAD',
    fees: MOONPAY_ANY_METHOD_FEES,
    methods: { offered: [{ method: 'bank_transfer', currencies: ['CAD'] }], source: MOONPAY_METHODS_PAGE },
    // MoonPay documents an Interac payment's own speed ("up to 30 minutes"), not the time to crypto after it.
    timeToUsdc: {
      minutes: 30,
      source: MOONPAY_METHODS_PAGE,
      assumed: "MoonPay documents the Interac payment's speed, not the time to crypto",
    },
    countries: { only: ['CA'], source: MOONPAY_METHODS_PAGE },
  },
  'interac',
);
