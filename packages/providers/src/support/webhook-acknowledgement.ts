import type { WebhookAcknowledgement } from '../provider-contract';

/** The usual answers to an accepted webhook. */
export function jsonAcknowledgement(body: unknown, statusCode = 200): WebhookAcknowledgement {
  return { statusCode, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
}

export function textAcknowledgement(body: string, statusCode = 200): WebhookAcknowledgement {
  return { statusCode, contentType: 'text/plain; charset=utf-8', body };
}
