import { EU_COUNTRIES } from '../../support/choice-facts';
import { MOONPAY_ANY_METHOD_FEES, MOONPAY_METHODS_PAGE, MOONPAY_TIME_TO_USDC, moonpayPaymentMethod } from '../moonpay/moonpay-adapter';

/**
 * PayPal, through MoonPay: what the PayGate plugins send as `paypal`. PayPal is no card on-ramp of
 * its own that delivers USDC on Polygon to a given address; MoonPay lists PayPal among its payment
 * methods (support.moonpay.com, "MoonPay's supported payment methods": the US, the UK and the EU
 * except Croatia, Hungary and Iceland) and documents `paypal` as a `paymentMethod` its widget
 * preselects (https://dev.moonpay.com/platform/guides/pay-with-widget). Why MoonPay: Topper's bootstrap
 * token documents a `paypal` payment network as well, but MoonPay's pages also state where PayPal is
 * offered, and Interac already runs on the MoonPay account the same way.
 *
 * It runs on the operator's MoonPay account: its settings are MoonPay's keys (`PROVIDER_PAYPAL_API_KEY`
 * = the pk_, and so on: the same values, or the same secret files, as `PROVIDER_MOONPAY_*`), and
 * MoonPay's webhooks for it arrive at `/webhooks/moonpay` (`account`). Setting them is the
 * operator's opt-in, once PayPal is enabled on the MoonPay account.
 * Choices: any currency and MoonPay's 20 USD minimum (PayPal's availability follows the customer's
 * country, which the gateway does not know; where PayPal is not offered, MoonPay lets the customer
 * choose another method, per the same page). Unconfirmed: PayPal's own limits on MoonPay. Fees: no
 * PayPal figure of MoonPay's found, so MoonPay's span across its payment methods
 * (MOONPAY_ANY_METHOD_FEES); MoonPay's quote for the method (quote()) names the real one.
 */
export const paypal = moonpayPaymentMethod(
  {
    id: 'paypal',
    displayName: 'PayPal (via MoonPay)',
    currency: 'any',
    minimum: '20',
    minimumCurrency: 'USD',
    fees: MOONPAY_ANY_METHOD_FEES,
    methods: { offered: [{ method: 'paypal' }], source: MOONPAY_METHODS_PAGE },
    timeToUsdc: { ...MOONPAY_TIME_TO_USDC, assumed: "MoonPay's time for a card purchase; none is documented for PayPal" },
    // The US, the UK and the EU except Croatia and Hungary (Iceland, also excluded, is not in the EU).
    countries: { only: ['US', 'GB', ...EU_COUNTRIES.filter((code) => code !== 'HR' && code !== 'HU')], source: MOONPAY_METHODS_PAGE },
  },
  'paypal',
);
