// `pnpm --filter @gateway/callback-worker keygen [kid]`: a new Ed25519 callback signing key. The
// private half goes to the callback-worker only (CALLBACK_SIGNING_KEYS), the public half to
// wallet-control (CALLBACK_PUBLIC_KEYS), which publishes it. To rotate, put the new entry first in
// both lists, keep the old one until merchants have fetched the new public key, then drop it.
import { generateKeyPairSync } from 'node:crypto';

const kid = process.argv[2] ?? `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
if (!/^[A-Za-z0-9_-]{1,32}$/.test(kid)) {
  console.error('the key id may hold letters, digits, _ and - (at most 32)');
  process.exit(2);
}
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const privateDer = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
const publicDer = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
console.log(`CALLBACK_SIGNING_KEYS=${kid}:${privateDer}`);
console.log(`CALLBACK_PUBLIC_KEYS=${kid}:${publicDer}`);
