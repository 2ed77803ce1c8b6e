import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { invalidParameter } from '@gateway/domain';

const MAX_NAME = 64;

/**
 * The query parser keeps a parameter whose percent-encoding is broken (`%zz`, `%ff`, a lone `%`)
 * as the raw text, so `a=50%off` would reach a handler as if it had been sent encoded. A
 * request like that is refused instead, naming the parameter: 400 invalid_parameter.
 */
export const queryEncodingPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request) => {
    const start = request.url.indexOf('?');
    if (start < 0 || request.url.indexOf('%', start) < 0) return;
    const bad = firstBadlyEncoded(request.url.slice(start + 1));
    if (bad !== undefined) {
      throw invalidParameter(
        bad,
        `${bad} is not valid percent-encoding: every % must start a %XX escape of UTF-8 bytes (a literal % is %25); URL-encode the value`,
      );
    }
  });
});

/** The name of the first parameter whose name or value does not decode; undefined when all do. */
export function firstBadlyEncoded(query: string): string | undefined {
  for (const pair of query.split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decode(rawName);
    if (name === undefined) return rawName.slice(0, MAX_NAME);
    if (eq >= 0 && decode(pair.slice(eq + 1)) === undefined) return name.slice(0, MAX_NAME);
  }
  return undefined;
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}
