import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { GatewayError } from '@gateway/domain';
import { publicKeyToJwk } from '@usdc-card-gateway/sdk';
import type { CallbackPublicKey } from '../../config';
import { errorBodySchema } from '@gateway/http';

// Merchants cache these; a rotation adds the new key well before it signs alone, so minutes are fine.
const CACHE_CONTROL = 'public, max-age=300';

const jwkSet = Type.Object(
  {
    keys: Type.Array(
      Type.Object({
        kty: Type.Literal('OKP'),
        crv: Type.Literal('Ed25519'),
        x: Type.String(),
        kid: Type.String(),
        use: Type.Literal('sig'),
        alg: Type.Literal('EdDSA'),
      }),
    ),
  },
  { description: 'JWK set (RFC 7517) of the Ed25519 keys that sign callbacks, newest first' },
);

/**
 * The public keys merchants verify callback signatures with (`x-gateway-signature`, see the SDK):
 * PEM for people and plugins, a JWK set with key ids for libraries.
 */
export const keyRoutes =
  (keys: readonly CallbackPublicKey[]): FastifyPluginAsyncTypebox =>
  async (app) => {
    const pem = keys.map(({ key }) => key.export({ format: 'pem', type: 'spki' }).toString()).join('');
    const jwks = { keys: keys.map(({ kid, key }) => publicKeyToJwk(key, kid)) };
    const notConfigured = () =>
      new GatewayError('service_unavailable', 'no callback signing key is configured on this gateway (CALLBACK_PUBLIC_KEYS)');

    app.get(
      '/control/pubkey.php',
      {
        schema: {
          summary: 'Callback public keys (PEM)',
          description: 'The Ed25519 public keys that sign callbacks, as PEM blocks, newest first.',
          tags: ['callbacks'],
          produces: ['text/plain'],
          response: { 200: Type.String(), 503: errorBodySchema },
        },
      },
      async (_request, reply) => {
        if (keys.length === 0) throw notConfigured();
        reply.type('text/plain; charset=utf-8').header('cache-control', CACHE_CONTROL);
        return pem;
      },
    );

    app.get(
      '/.well-known/jwks.json',
      {
        schema: {
          summary: 'Callback public keys (JWK set)',
          tags: ['callbacks'],
          response: { 200: jwkSet, 503: errorBodySchema },
        },
      },
      async (_request, reply) => {
        if (keys.length === 0) throw notConfigured();
        reply.header('cache-control', CACHE_CONTROL);
        return jwks;
      },
    );
  };
