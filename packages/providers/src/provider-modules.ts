import type { ProviderModule } from './provider-contract';
import { alchemypay } from './adapters/alchemypay/alchemypay-adapter';
import { banxa } from './adapters/banxa/banxa-adapter';
import { binance } from './adapters/binance/binance-adapter';
import { guardarian } from './adapters/guardarian/guardarian-adapter';
import { coinbase } from './adapters/coinbase/coinbase-adapter';
import { interac } from './adapters/moonpay-interac/moonpay-interac-adapter';
import { mercuryo } from './adapters/mercuryo/mercuryo-adapter';
import { moonpay } from './adapters/moonpay/moonpay-adapter';
import { particle } from './adapters/particle/particle-adapter';
import { paypal } from './adapters/paypal/paypal-adapter';
import { rampnetwork } from './adapters/rampnetwork/rampnetwork-adapter';
import { revolut } from './adapters/revolut/revolut-adapter';
import { sardine } from './adapters/sardine/sardine-adapter';
import { simplex } from './adapters/simplex/simplex-adapter';
import { stripe } from './adapters/stripe/stripe-adapter';
import { swipelux } from './adapters/swipelux/swipelux-adapter';
import { topper } from './adapters/topper/topper-adapter';
import { transak } from './adapters/transak/transak-adapter';
import { transfi } from './adapters/transfi/transfi-adapter';
import { unlimit } from './adapters/unlimit/unlimit-adapter';
import { upi } from './adapters/onramp-money/onramp-money-adapter';
import { utorg } from './adapters/utorg/utorg-adapter';
import { wert } from './adapters/wert/wert-adapter';
import { werteur } from './adapters/werteur/werteur-adapter';

/**
 * Every provider with an adapter, in the order the hosted checkout lists them (the
 * specification's order, then the providers the plugins add). Adding one is its folder under
 * adapters/ and one line here.
 */
export const PROVIDER_MODULES: readonly ProviderModule[] = [
  wert,
  stripe,
  transak,
  moonpay,
  rampnetwork,
  guardarian,
  particle,
  coinbase,
  sardine,
  banxa,
  utorg,
  simplex,
  alchemypay,
  mercuryo,
  topper,
  unlimit,
  transfi,
  interac,
  upi,
  revolut,
  swipelux,
  werteur,
  paypal,
  binance,
];
