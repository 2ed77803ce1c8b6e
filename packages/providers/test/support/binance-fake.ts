import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { headerOf, jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';

/**
 * A local Binance Pay Onchain API: POST /papi/v1/ramp/connect/buy/pre-order and
 * /papi/v1/ramp/connect/order, each checked as the request-signing page describes it (X-Tesla-ClientId,
 * X-Tesla-SignAccessToken, X-Tesla-Timestamp, and X-Tesla-Signature: base64 SHA256withRSA of
 * `body + timestamp` verified with the partner's public key). A pre-order needs the pre-order page's
 * required fields and an externalOrderId never used before; it answers `{code: "000000", success,
 * data: {link, linkExpireTime}}`. The look-up answers the order as `addOrder` left it (INIT after a
 * pre-order). Binance's error codes are not all documented: `{code: "000001", success: false}` here,
 * and every refusal is a problem.
 */
export interface BinanceFake extends DocumentedFake {
  clientId: string;
  apiKey: string;
  /** The partner's key pair (Binance holds the public half): the adapter signs with the private one. */
  partnerPrivateKeyPem: string;
  /** Binance's key pair: tests sign webhooks with the private half; the adapter verifies with the public one. */
  binancePrivateKey: KeyObject;
  binancePublicKeyPem: string;
  addOrder(order: Record<string, unknown>): void;
}

const CLIENT_ID = 'gateway-client-7';
const API_KEY = 'bnc-sign-access-token-4f7a1c9e2b6d';
const REQUIRED_PRE_ORDER = ['externalOrderId', 'merchantCode', 'merchantName', 'ts'] as const;

export async function startBinanceFake(now: () => number = Date.now): Promise<BinanceFake> {
  const partner = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const binanceKeys = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const orders = new Map<string, Record<string, unknown>>();
  const refusal = (status: number, message: string) => jsonAnswer(status, { code: '000001', message, data: null, success: false });
  const refuse = (why: string, status = 200): FakeAnswer => {
    fake.problems.push(why);
    return refusal(status, why);
  };
  const ok = (data: unknown): FakeAnswer => jsonAnswer(200, { code: '000000', message: 'success', data, success: true });

  /** The body of a request signed as documented, or the refusal of one that is not. */
  function signedBody(request: FakeRequest): { body: Record<string, unknown> } | { refusal: FakeAnswer } {
    const header = (name: string) => headerOf(request, name);
    if (header('x-tesla-clientid') !== CLIENT_ID || header('x-tesla-signaccesstoken') !== API_KEY) {
      return { refusal: refuse('unknown client id or API key', 401) };
    }
    if (!sentAsJson(request)) return { refusal: refuse('a JSON body is expected', 400) };
    const timestamp = header('x-tesla-timestamp');
    const signature = Buffer.from(header('x-tesla-signature'), 'base64');
    const verified = verify('sha256', Buffer.from(`${request.body}${timestamp}`), partner.publicKey, signature);
    if (!/^\d{13}$/.test(timestamp) || !verified) return { refusal: refuse('signature does not verify', 401) };
    const body = fake.jsonBody(request);
    return body ? { body } : { refusal: refuse('body is not JSON', 400) };
  }

  function preOrder(request: FakeRequest): FakeAnswer {
    const signed = signedBody(request);
    if ('refusal' in signed) return signed.refusal;
    const { body } = signed;
    const missing = REQUIRED_PRE_ORDER.filter((field) => body[field] === undefined);
    if (missing.length > 0) return refuse(`${missing.join(', ')} required`);
    const id = String(body.externalOrderId);
    if (!/^[A-Za-z0-9]{1,64}$/.test(id)) {
      fake.problems.push(`externalOrderId ${id} is not letters and digits`);
      return refuse('externalOrderId has special characters');
    }
    if (orders.has(id)) return refuse('duplicate externalOrderId');
    if (typeof body.fiatAmount !== 'number' || typeof body.address !== 'string' || typeof body.network !== 'string') {
      return refuse('fiatAmount, address and network expected');
    }
    orders.set(id, { externalOrderId: body.externalOrderId, status: 0, type: 1 });
    return ok({ link: `https://app.binance.com/uni-qr/ccnt?externalOrderId=${id}`, linkExpireTime: now() + 15 * 60_000 });
  }

  function order(request: FakeRequest): FakeAnswer {
    const signed = signedBody(request);
    if ('refusal' in signed) return signed.refusal;
    const found = orders.get(String(signed.body.externalOrderId));
    return found ? ok(found) : refuse('order not found');
  }

  const fake = await startDocumentedFake({
    routes: [
      { method: 'POST', path: '/papi/v1/ramp/connect/buy/pre-order', answer: preOrder },
      { method: 'POST', path: '/papi/v1/ramp/connect/order', answer: order },
    ],
    refusal,
    reset: () => orders.clear(),
  });
  return Object.assign(fake, {
    clientId: CLIENT_ID,
    apiKey: API_KEY,
    partnerPrivateKeyPem: partner.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    binancePrivateKey: binanceKeys.privateKey,
    binancePublicKeyPem: binanceKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    addOrder: (added: Record<string, unknown>) => void orders.set(String(added.externalOrderId), added),
  });
}
