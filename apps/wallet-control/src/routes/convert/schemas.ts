import { Type } from '@sinclair/typebox';
import { CONVERT_VALUE_MAX_DECIMALS, SUPPORTED_CURRENCIES } from '@gateway/domain';

export const convertQuery = Type.Object({
  value: Type.String({
    description:
      `the amount to convert: a plain positive decimal with a dot, at most ${CONVERT_VALUE_MAX_DECIMALS} decimals (no ` +
      `sign, exponent or comma), e.g. 49.99 or 150`,
    examples: ['49.99'],
  }),
  from: Type.String({
    description: `the currency of value, an ISO 4217 code in either case: ${SUPPORTED_CURRENCIES.join(', ')}`,
    examples: ['eur'],
  }),
});

export const convertResult = Type.Object(
  {
    status: Type.Literal('success'),
    value_coin: Type.String({
      description:
        'the value in USD with exactly 2 decimals, rounded up to the cent (never short of the value); pass it as Process Payment ' +
        'amount with currency=USD',
      examples: ['54.24'],
    }),
    exchange_rate: Type.String({
      description:
        'USD per 1 unit of from (10 significant digits, for information; value_coin is computed from the exact rate); "1" for USD',
      examples: ['1.086956522'],
    }),
  },
  { description: 'the value in USD' },
);
