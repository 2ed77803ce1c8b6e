import { defineProvider, type AdapterDescriptor } from '../../provider-contract';
import { createWertAdapter, wert, wertSettings } from '../wert/wert-adapter';

/**
 * Wert in euros: what the PayGate plugins send as `werteur`. The same hosted payment page as Wert
 * (https://docs.wert.io/docs/fiat-onramp: the session's `currency` is the fiat the customer pays
 * in), with EUR as the currency. It runs on the operator's Wert account (`account`): its settings
 * are Wert's (`PROVIDER_WERTEUR_PARTNER_ID`, `_API_KEY`, `_API_URL`: the same values, or the same
 * secret files, as `PROVIDER_WERT_*`), setting them is the opt-in, and Wert's webhooks for its
 * orders arrive at `/webhooks/wert`, matched against the payments of both (each a hint; the order
 * is looked up with the Data API by click_id, whichever of the two made it).
 * Unconfirmed: that the account takes EUR sessions (the session page read lists `currency` without
 * its values); the minimum 1 EUR is a choice mirroring Wert's 1 USD (none found on a page read).
 * - No quote(): as Wert's (wert-adapter.ts: its Converter's answer is not in the copy read); its
 *   rows show the estimate.
 */
const descriptor: AdapterDescriptor<typeof wertSettings> = {
  hosts: { live: 'https://widget.wert.io', test: 'https://sandbox.wert.io' },
  docs: 'https://docs.wert.io/docs/fiat-onramp',
  id: 'werteur',
  displayName: 'Wert (EUR)',
  currency: 'EUR',
  minimum: '1',
  minimumCurrency: 'EUR',
  // Wert's own: the same account and checkout.
  fees: wert.descriptor.fees,
  methods: wert.descriptor.methods,
  timeToUsdc: wert.descriptor.timeToUsdc,
  countries: wert.descriptor.countries,
  ...(wert.descriptor.lightChecksUpTo ? { lightChecksUpTo: wert.descriptor.lightChecksUpTo } : {}),
  flow: 'session',
  webhook: 'none: unsigned (a hint; the order is looked up) (at /webhooks/wert)',
  webhookUnsigned: true,
  reportsDestination: true,
  delivers: 'native',
  settings: wertSettings,
  account: 'wert',
};

export const werteur = defineProvider({
  descriptor,
  create: (values, context) => createWertAdapter(descriptor, values, context),
});
