import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  convertAmountToUsd,
  formatSignificant,
  GatewayError,
  parseConvertValue,
  parseCurrency,
  UNIT_RATE,
  usdPerUnit,
  type ExactRate,
} from '@gateway/domain';
import type { RateReader } from '@gateway/rates';
import { convertQuery, convertResult } from './schemas';
import { errorBodySchema } from '@gateway/http';

/**
 * Convert to USD: what shop plugins call before Process Payment when the store's currency is not
 * USD (and what the Interac and UPI modules use to check CAD and INR payments). USD is the
 * identity and needs no rate; any other currency uses the rates the reader holds (never fetched
 * on the request path).
 */
export function convertRoutes(rates: RateReader): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/control/convert.php',
      {
        schema: {
          summary: 'Convert to USD',
          description:
            'Converts an amount in a supported currency to USD at the current reference rate, rounded up to the cent so a payment of ' +
            'value_coin USD never falls short of the order.',
          tags: ['wallet'],
          querystring: convertQuery,
          response: { 200: convertResult, 400: errorBodySchema, 503: errorBodySchema },
        },
      },
      async (request) => {
        const amount = parseConvertValue(request.query.value, 'value');
        const currency = parseCurrency(request.query.from, 'from');
        let rate: ExactRate = UNIT_RATE;
        if (currency !== 'USD') {
          const snapshot = await rates.current();
          const found = snapshot.rates.get(currency);
          if (!found) {
            throw new GatewayError(
              'unsupported_currency',
              `from ${currency} has no exchange rate on this gateway: its rate source (${snapshot.source}) does not publish one; ` +
                `convert from another currency`,
              'from',
            );
          }
          rate = found;
        }
        const { valueCoin } = convertAmountToUsd(amount, rate, 'value');
        return { status: 'success' as const, value_coin: valueCoin, exchange_rate: formatSignificant(usdPerUnit(rate)) };
      },
    );
  };
}
