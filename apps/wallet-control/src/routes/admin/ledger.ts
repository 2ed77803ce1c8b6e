import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Pool } from 'pg';
import { LEDGER_CONTENT_TYPES, ledgerExport, ledgerFileName, LedgerRepository } from '@gateway/db/wallet-control';
import { parseLedgerQuery, unknownLedgerPayoutAddress } from '@gateway/domain';

const ledgerQuerystring = Type.Object({
  payout_address: Type.Optional(Type.String({ description: "the merchant's payout address (0x and 40 hexadecimal characters)" })),
  from: Type.Optional(
    Type.String({ description: 'orders created from this day (YYYY-MM-DD, midnight UTC) or ISO 8601 time with its offset' }),
  ),
  to: Type.Optional(Type.String({ description: 'up to this day or time, excluded; at most 366 days after from' })),
  format: Type.Optional(Type.String({ description: 'csv (default: one row per order) or json (JSON Lines: one object per order)' })),
});

/**
 * GET /admin/ledger?payout_address=…&from=…&to=…[&format=csv|json]: a merchant's ledger
 * (docs/ledger.md), streamed from PostgreSQL as it is read, by the code path of `gateway ledger
 * export`. Registered inside the admin routes, behind their token check (401 without it).
 */
export const ledgerRoutes =
  (options: { pool: Pool }): FastifyPluginAsyncTypebox =>
  async (app) => {
    const ledger = new LedgerRepository(options.pool);

    app.get(
      '/admin/ledger',
      {
        // No response schema: the answer is a stream (CSV or JSON Lines), the errors the kit's shape.
        schema: { hide: true, querystring: ledgerQuerystring },
      },
      async (request, reply) => {
        const query = parseLedgerQuery(request.query);
        if (!(await ledger.knowsPayoutAddress(query.payoutAddress))) throw unknownLedgerPayoutAddress(query.payoutAddress);
        request.log.info(
          { payoutAddress: query.payoutAddress, from: query.from, to: query.to, format: query.format },
          "a merchant's ledger exported to an operator",
        );
        return reply
          .header('content-type', LEDGER_CONTENT_TYPES[query.format])
          .header('content-disposition', `attachment; filename="${ledgerFileName(query)}"`)
          .header('cache-control', 'no-store')
          .send(ledgerExport(ledger, query));
      },
    );
  };
