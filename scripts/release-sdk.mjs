// `pnpm release:sdk [--out <folder>]`: the merchant SDK's tarball, built and checked, for a merchant
// who installs it without the public registry (packages/sdk/README.md, Install). `npm pack` builds
// it (prepack: build.mjs), then the tarball is installed into an empty folder, offline, and used
// from plain Node as CommonJS and as an ES module: a link built, a callback signed and verified.
// Prints the tarball's path, size and SHA-256 (what a merchant compares before installing it), and
// a last line of JSON for a program (packages/sdk/test/package.test.ts runs this script).
// Plain Node: it runs from a fresh checkout after `pnpm install`.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const sdk = join(root, 'packages', 'sdk');
const outIndex = process.argv.indexOf('--out');
const out = resolve(outIndex === -1 ? join(root, 'release') : process.argv[outIndex + 1]);
mkdirSync(out, { recursive: true });

const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });
const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', out], sdk));
const tarball = join(out, packed.filename);

const shop = mkdtempSync(join(tmpdir(), 'sdk-release-check-'));
try {
  writeFileSync(join(shop, 'package.json'), JSON.stringify({ name: 'release-check', private: true }));
  npm(['install', '--offline', tarball], shop);
  const use = (load) => `${load}
const { generateKeyPairSync } = require_('node:crypto');
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
const url = 'https://shop.example/ipn?order=1&value_forwarded_coin=4.95&address_out=' + payout + '&ipn_token=t&order_total_coin=5&order_expected_coin=5&order_state=paid';
const header = sdk.signCallback({ url, deliveryId: 'd-1', privateKeys: [{ key: privateKey }] });
const order = sdk.verifyCallbackOrder({ url, header, deliveryId: 'd-1', publicKeys: [publicKey], payoutAddress: payout, ipnToken: 't', minimumExpected: '4.9' });
const link = sdk.buildPaymentLink({ paymentUrl: 'https://pay.example', addressIn: 'tok', amount: '5.00', provider: 'moonpay', email: 'a@b.io', currency: 'USD' });
if (!order.ok || !order.order.paid || !link.startsWith('https://pay.example/process-payment.php?')) { console.error(JSON.stringify(order)); process.exit(1); }
`;
  writeFileSync(join(shop, 'check.cjs'), use(`const sdk = require('${packed.name}'); const require_ = require;`));
  writeFileSync(
    join(shop, 'check.mjs'),
    use(
      `import * as sdk from '${packed.name}'; import { createRequire } from 'node:module'; const require_ = createRequire(import.meta.url);`,
    ),
  );
  for (const file of ['check.cjs', 'check.mjs']) execFileSync(process.execPath, [file], { cwd: shop, stdio: 'inherit' });
} finally {
  rmSync(shop, { recursive: true, force: true });
}

const bytes = readFileSync(tarball);
const sha256 = createHash('sha256').update(bytes).digest('hex');
console.log(`${packed.name}@${packed.version}: ${tarball} (${bytes.length} bytes)\nsha256 ${sha256}`);
console.log(
  `checked: installed offline into an empty folder, used as CommonJS and as an ES module\ninstall it with: npm install ${tarball}`,
);
console.log(JSON.stringify({ name: packed.name, version: packed.version, tarball, sha256, files: packed.files.map((file) => file.path) }));
