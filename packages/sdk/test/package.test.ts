import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The SDK as a merchant gets it: the release step's tarball (`pnpm release:sdk`, npm pack), installed into an empty folder, then used
// from plain Node as CommonJS and as an ES module, and type-checked as both. Nothing of the
// workspace is on the consumer's path but the tarball (and TypeScript, for the type check).

const PACKAGE = join(__dirname, '..');
const ROOT = join(PACKAGE, '..', '..');
const NAME = '@usdc-card-gateway/sdk';
let folder: string;
let files: string[];

// What both consumers do: build a link, sign a callback and verify it with the SDK's own checks.
const USE = (load: string) => `
${load}
const { generateKeyPairSync } = require_('node:crypto');
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const link = sdk.buildPaymentLink({ paymentUrl: 'https://pay.example.com', addressIn: 'tok', amount: '5.00', provider: 'moonpay', email: 'a@b.io', currency: 'USD' });
const url = 'https://shop.example/ipn?order=1&address_out=0x52908400098527886E0F7030069857D2E4169EE7&value_coin=5&value_forwarded_coin=4.95&ipn_token=abc';
const header = sdk.signCallback({ url, deliveryId: 'd-1', privateKeys: [{ key: privateKey }] });
const verdict = sdk.verifyCallbackSignature({ url, header, deliveryId: 'd-1', publicKeys: [publicKey], payoutAddress: '0x52908400098527886E0F7030069857D2E4169EE7', expectedAmount: '4.95' });
const orderUrl = url + '&order_total_coin=5&order_expected_coin=5&order_state=paid';
const orderHeader = sdk.signCallback({ url: orderUrl, deliveryId: 'd-2', privateKeys: [{ key: privateKey }] });
const order = sdk.verifyCallbackOrder({ url: orderUrl, header: orderHeader, deliveryId: 'd-2', publicKeys: [publicKey], payoutAddress: '0x52908400098527886E0F7030069857D2E4169EE7', ipnToken: 'abc', minimumExpected: '4.9' });
const client = new sdk.GatewayClient({ baseUrl: 'https://api.example.com', paymentUrl: 'https://pay.example.com' });
console.log(JSON.stringify({ link, ok: verdict.ok, paid: order.ok && order.order.paid, hosted: client.hostedPaymentLink({ addressIn: 'tok', amount: '5', email: 'a@b.io', currency: 'USD' }) }));
`;

const EXPECTED = {
  link: 'https://pay.example.com/process-payment.php?address=tok&amount=5.00&provider=moonpay&email=a%40b.io&currency=USD',
  ok: true,
  paid: true,
  hosted: 'https://pay.example.com/pay.php?address=tok&amount=5&email=a%40b.io&currency=USD',
};

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'sdk-package-'));
  const npm = (args: string[], cwd: string) =>
    execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });
  // The tarball of the release step (`pnpm release:sdk`), which has checked it already; its last line is JSON.
  const output = execFileSync(process.execPath, [join(ROOT, 'scripts', 'release-sdk.mjs'), '--out', folder], { encoding: 'utf8' });
  const released = JSON.parse(output.trim().split('\n').at(-1)!) as { tarball: string; files: string[] };
  files = [...released.files].sort();
  const consumer = join(folder, 'shop');
  execFileSync('mkdir', ['-p', consumer]);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'shop', private: true }));
  npm(['install', '--offline', released.tarball], consumer);
}, 120_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

const shop = () => join(folder, 'shop');
const node = (file: string) => JSON.parse(execFileSync(process.execPath, [file], { cwd: shop(), encoding: 'utf8' }));

it('packs the built CommonJS and ES module with their types, and no sources or build state', () => {
  expect(files).toEqual(
    expect.arrayContaining([
      'LICENSE',
      'README.md',
      'package.json',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/esm/index.mjs',
      'dist/esm/index.d.mts',
    ]),
  );
  expect(files.filter((path) => path.startsWith('src/') || path.endsWith('.tsbuildinfo') || path.endsWith('.ts.map'))).toEqual([]);
  expect(readdirSync(join(shop(), 'node_modules', '@usdc-card-gateway', 'sdk'))).not.toContain('node_modules');
});

it('works from plain Node as CommonJS (require)', () => {
  writeFileSync(join(shop(), 'use.cjs'), USE(`const sdk = require('${NAME}'); const require_ = require;`));
  expect(node('use.cjs')).toEqual(EXPECTED);
});

it('works from plain Node as an ES module (import)', () => {
  writeFileSync(
    join(shop(), 'use.mjs'),
    USE(`import * as sdk from '${NAME}'; import { createRequire } from 'node:module'; const require_ = createRequire(import.meta.url);`),
  );
  expect(node('use.mjs')).toEqual(EXPECTED);
});

it('type-checks as both module systems with its own declarations', () => {
  const body = `
const client = new GatewayClient({ baseUrl: 'https://api.example.com', paymentUrl: 'https://pay.example.com' });
export async function order(): Promise<string> {
  const wallet: GatewayWallet = await client.createWallet({ payoutAddress: '0x52908400098527886E0F7030069857D2E4169EE7', callbackUrl: 'https://shop.example/ipn?o=1' });
  const result: VerifyCallbackSignatureResult = verifyCallbackSignature({ url: '', header: '', deliveryId: '', publicKeys: [], payoutAddress: '0x52908400098527886E0F7030069857D2E4169EE7', expectedAmount: false });
  return result.ok ? client.paymentLink({ addressIn: wallet.addressIn, amount: '1', provider: 'moonpay', email: 'a@b.io', currency: 'USD' }) : '';
}
// @ts-expect-error: the amount is a decimal string, never a number
client.paymentLink({ addressIn: 'x', amount: 1, provider: 'moonpay', email: 'a@b.io', currency: 'USD' });
`;
  const names = 'GatewayClient, verifyCallbackSignature, type GatewayWallet, type VerifyCallbackSignatureResult';
  writeFileSync(join(shop(), 'order.mts'), `import { ${names} } from '${NAME}';\n${body}`);
  writeFileSync(join(shop(), 'order.cts'), `import { ${names} } from '${NAME}';\n${body}`);
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const flags = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck'];
  const types = ['--typeRoots', join(ROOT, 'node_modules', '@types'), '--types', 'node'];
  expect(() =>
    execFileSync(process.execPath, [tsc, ...flags, ...types, 'order.mts', 'order.cts'], { cwd: shop(), encoding: 'utf8' }),
  ).not.toThrow();
});
