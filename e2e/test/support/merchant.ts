// The shop's side of a test: a server on loopback that gets the gateway's callbacks (or plays another site).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CALLBACK_DELIVERY_ID_HEADER,
  CALLBACK_SIGNATURE_HEADER,
  type CallbackPublicKey,
  verifyCallbackSignature,
} from '@usdc-card-gateway/sdk';

type CallbackVerdict = ReturnType<typeof verifyCallbackSignature>;

export interface Merchant {
  /** http://127.0.0.1:<port>, without a trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** A server whose `handle` gets each request with its full URL. */
export async function startMerchant(handle: (url: string, request: IncomingMessage, response: ServerResponse) => void): Promise<Merchant> {
  const server = createServer((request, response) => handle(`${merchant.url}${request.url}`, request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const merchant: Merchant = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return merchant;
}

export type RecordingMerchant = Merchant & { callbacks: string[] };

/** A merchant that answers every callback `*ok*` and keeps its URL in `callbacks`. */
export async function startRecordingMerchant(): Promise<RecordingMerchant> {
  const callbacks: string[] = [];
  const merchant = await startMerchant((url, _request, response) => {
    callbacks.push(url);
    response.writeHead(200).end('*ok*');
  });
  return { ...merchant, callbacks };
}

/**
 * The shop's check of a callback, as the README tells it: the gateway's signature with `publicKey`,
 * its payout address, and its amount (`false`: the test asserts the amounts itself).
 */
export function checkCallback(
  url: string,
  request: IncomingMessage,
  expected: { publicKey: CallbackPublicKey; payoutAddress: string; amount: string | false },
): CallbackVerdict {
  return verifyCallbackSignature({
    url,
    header: request.headers[CALLBACK_SIGNATURE_HEADER],
    deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
    publicKeys: [expected.publicKey],
    payoutAddress: expected.payoutAddress,
    expectedAmount: expected.amount,
  });
}
