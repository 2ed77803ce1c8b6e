import type { ProviderStatusQuery, ProviderWebhookEvent } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { moonpayTransactionEvent } from './moonpay-webhook';
import { lookupAnswer } from '../../support/session-call';

/**
 * MoonPay's order look-up: "Get Buy transaction by external identifier",
 * https://dev.moonpay.com/v1.0/reference/getbuytransactionbyexternalid —
 * GET https://api.moonpay.com/v1/transactions/ext/{externalTransactionId} with the publishable key
 * as `apiKey` (as the quote and "Get Buy transaction" take it); it answers an array of buy
 * transactions, the webhook's `data` objects, because MoonPay cannot ensure the uniqueness of an
 * external id.
 *
 * Choices where the docs are open: our widget URL sets `externalTransactionId` to the payment id
 * (moonpay-adapter.ts), so the look-up is by payment id; of several transactions (the customer
 * opened the widget twice) the one created last speaks for the payment, as the latest webhook
 * would; an empty array or a 404 means MoonPay has no transaction yet (the widget not submitted).
 */
export async function moonpayTransactionStatus(
  http: ProviderHttpClient,
  { apiHost, apiKey }: { apiHost: string; apiKey: string },
  query: ProviderStatusQuery,
  signal: AbortSignal,
): Promise<ProviderWebhookEvent | null> {
  const url = new URL(`/v1/transactions/ext/${encodeURIComponent(query.paymentId)}`, apiHost);
  url.searchParams.append('apiKey', apiKey);
  const response = await http.request({
    method: 'GET',
    url: url.toString(),
    headers: { accept: 'application/json' },
    signal,
    retryable: true,
  });
  if (response.statusCode === 404) return null;
  const body = lookupAnswer('MoonPay', 'transaction', response);
  if (!Array.isArray(body)) throw new Error('MoonPay answered the transaction look-up with something other than an array');
  const transactions = body.filter(
    (item): item is Record<string, unknown> =>
      typeof item === 'object' && item !== null && (item as Record<string, unknown>).externalTransactionId === query.paymentId,
  );
  const latest = transactions.sort((a, b) => String(b.createdAt ?? '').localeCompare(String(a.createdAt ?? '')))[0];
  if (!latest) return null;
  const read = moonpayTransactionEvent(latest);
  // A status word the mapping does not know says nothing yet: asked again later.
  return read.kind === 'event' ? read.event : null;
}
