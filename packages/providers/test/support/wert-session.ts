import type { Static, TObject } from '@sinclair/typebox';
import type { ProviderModule } from '../../src/provider-contract';
import { readingOf } from './adapter-contract';
import type { SessionAdapterFixture } from './session-adapter-suite';
import { startWertFake, type WertFake } from './wert-fake';

export const WERT_PARTNER_ID = '01GJMAVBKQYNKGCFSPE4QTN4AC';

/** The body of the fake's `index`-th request (its last by default), as JSON. */
export const sentWertBody = (fake: WertFake, index = fake.requests.length - 1) =>
  JSON.parse(fake.requests[index]!.body) as Record<string, unknown>;

/** What Wert's two adapters (in USD and in EUR, on one partner account) run in the session suite, on one local Wert. */
export function wertSession<S extends TObject>(module: ProviderModule<S>): SessionAdapterFixture<S, WertFake> {
  return {
    module,
    startFake: () => startWertFake(),
    settings: (fake) => ({ PARTNER_ID: WERT_PARTNER_ID, API_KEY: fake.apiKey, API_URL: fake.url }) as Static<S>,
    modes: ['test', 'live'],
    contract: (fake) => ({
      // The widget URL carries the session (opaque), our click_id and the return URL; the session is what Wert was asked for.
      readCheckout: (url) => {
        expect(url.pathname).toBe(`/${WERT_PARTNER_ID}/widget`);
        const body = sentWertBody(fake());
        return readingOf({
          wallet: body.wallet_address,
          amount: body.currency_amount,
          currency: body.currency,
          reference: url.searchParams.get('click_id'),
        });
      },
    }),
    secret: (fake) => fake.apiKey,
    sends: 'once',
    malformed: {
      'no sessionId': '{"requestId":"r"}',
      'a sessionId with a URL in it': '{"sessionId":"x&redirect_url=https://evil.example"}',
    },
    defaultHosts: {
      live: 'https://partner.wert.io/api/external/hpp/create-session',
      test: 'https://partner-sandbox.wert.io/api/external/hpp/create-session',
    },
    status: {
      error: /Wert/,
      failures: [['no success', { status: 200, body: '{"success":false}' }]],
    },
  };
}
