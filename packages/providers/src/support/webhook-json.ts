import { ProviderWebhookError } from '../provider-contract';
import { isObject } from './session-call';

/** A webhook body read as JSON; one that is not JSON is not the provider's. `what` names it: "Stripe webhook body". */
export function webhookJson(rawBody: Buffer, what: string): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new ProviderWebhookError(`${what} is not JSON`);
  }
}

/** A webhook body read as a JSON object (not an array, not null), else refused as not the provider's. */
export function webhookJsonObject(rawBody: Buffer, what: string): Record<string, unknown> {
  const body = webhookJson(rawBody, what);
  if (!isObject(body)) throw new ProviderWebhookError(`${what} is not a JSON object`);
  return body;
}
