import { spawnSync } from 'node:child_process';
import type { JsonWebKey } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { enqueueDeliveries } from '@gateway/queue';
import {
  CALLBACK_DELIVERY_ID_HEADER,
  CALLBACK_SIGNATURE_HEADER,
  publicKeyToJwk,
  verifyCallbackOrder,
  verifyCallbackSignature,
} from '@usdc-card-gateway/sdk';
import { seedDelivery, type TestDatabase } from '@gateway/app-testkit';
import { waitFor } from '@gateway/testkit';
import { deliveryRow, signingKeyPair } from '../support/fixtures';
import { MerchantStub, type ReceivedCallback } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';

// Issue 33: the callback verification examples in the plugins' languages (examples/callback-verification)
// give the SDK's answer, case by case, on callbacks the worker signed and sent: the same checks in
// the same order. PHP from Debian's php-cli (sodium built in), Python 3 with Debian's python3-cryptography.
const EXAMPLES = join(__dirname, '../../../../examples/callback-verification');
const PHP = 'php';
const PYTHON = '/usr/bin/python3';

const stub = new MerchantStub();
const fixture = useWorkerFixture('cbw_verification_examples', [stub]);
const rotatedOut = signingKeyPair('k0');

let db: TestDatabase;
let worker: FastifyInstance;

beforeAll(async () => {
  db = fixture.db;
  worker = await fixture.startWorker();
});

/** One check, as a shop would run it: which function, and what it passes. */
interface Case {
  name: string;
  check: 'order' | 'deposit';
  url: string;
  header: string | null;
  deliveryId: string | null;
  payoutAddress: string;
  ipnToken: string | null;
  /** minimumExpected for the order check, expectedAmount for the deposit check. */
  amount: string | false;
  now: number;
}

/** What every verifier answers, reduced to what a shop acts on. */
type Answer =
  | { ok: false; reason: string }
  | { ok: true; delivery_id: string; state?: string; paid?: boolean; total?: string; expected?: string };

function sdkAnswer(input: Case, keys: JsonWebKey[]): Answer {
  const common = {
    url: input.url,
    header: input.header ?? undefined,
    deliveryId: input.deliveryId ?? undefined,
    publicKeys: keys,
    payoutAddress: input.payoutAddress,
    now: input.now,
  };
  if (input.check === 'deposit') {
    const result = verifyCallbackSignature({ ...common, ipnToken: input.ipnToken ?? undefined, expectedAmount: input.amount });
    return result.ok ? { ok: true, delivery_id: result.deliveryId! } : { ok: false, reason: result.reason };
  }
  const result = verifyCallbackOrder({ ...common, ipnToken: input.ipnToken!, minimumExpected: input.amount });
  if (!result.ok) return { ok: false, reason: result.reason };
  const { state, paid, total, expected } = result.order;
  return { ok: true, delivery_id: result.deliveryId!, state, paid, total, expected };
}

// Each language's program reads the cases as JSON on stdin and prints its answers as JSON: the
// example's own functions, called as a shop's callback handler would call them.
function runPhp(cases: Case[], keys: JsonWebKey[]): Answer[] {
  const program = `
    require $argv[1];
    $input = json_decode(stream_get_contents(STDIN), true);
    $answers = [];
    foreach ($input['cases'] as $c) {
      $answers[] = $c['check'] === 'order'
        ? gateway_verify_callback_order($c['url'], $c['header'], $c['deliveryId'], $input['keys'], $c['payoutAddress'], $c['ipnToken'], $c['amount'], $c['now'])
        : gateway_verify_callback($c['url'], $c['header'], $c['deliveryId'], $input['keys'], $c['payoutAddress'], $c['ipnToken'], $c['amount'], $c['now']);
    }
    echo json_encode($answers);`;
  return run(PHP, ['-r', program, join(EXAMPLES, 'php/gateway-callback.php')], cases, keys);
}

function runPython(cases: Case[], keys: JsonWebKey[]): Answer[] {
  const program = [
    'import json, sys',
    'sys.path.insert(0, sys.argv[1])',
    'from gateway_callback import verify_callback, verify_callback_order',
    'data = json.load(sys.stdin)',
    'answers = []',
    "for c in data['cases']:",
    "    check = verify_callback_order if c['check'] == 'order' else verify_callback",
    "    answers.append(check(c['url'], c['header'], c['deliveryId'], data['keys'], c['payoutAddress'], c['ipnToken'], c['amount'], c['now']))",
    'print(json.dumps(answers))',
  ].join('\n');
  return run(PYTHON, ['-c', program, join(EXAMPLES, 'python')], cases, keys);
}

function run(command: string, args: string[], cases: Case[], keys: JsonWebKey[]): Answer[] {
  const result = spawnSync(command, args, { input: JSON.stringify({ cases, keys }), encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0)
    throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.error?.message ?? ''}${result.stderr}`);
  // Only what the SDK's answer has: the examples also return the time and address_out.
  return (JSON.parse(result.stdout) as Array<Record<string, unknown>>).map((answer) =>
    answer.ok
      ? Object.fromEntries(
          Object.entries(answer).filter(([key]) => ['ok', 'delivery_id', 'state', 'paid', 'total', 'expected'].includes(key)),
        )
      : { ok: false, reason: answer.reason },
  ) as Answer[];
}

async function delivered(id: string): Promise<void> {
  await waitFor(`delivery ${id} to be delivered`, async () => (await deliveryRow(db.pool, id)).status === 'delivered', 15_000);
}

describe('the PHP and Python verification examples', () => {
  it('answer as the SDK does on callbacks the worker signed: valid, tampered, replayed, stale, short, of another wallet', async () => {
    const sent = await fixture.deliver(worker, `${stub.origin}/ipn.php?order_id=1234`, 1, {
      valueCoin: 10_000_000n,
      orderTotalCoin: 10_000_000n,
      orderExpectedCoin: 25_000_000n,
      orderState: 'underpaid',
    });
    const { wallet } = sent;
    await delivered(sent.ids[0]!);
    const paid = await seedDelivery(db.pool, {
      walletId: wallet.id,
      valueCoin: 15_000_001n,
      orderTotalCoin: 25_000_001n,
      orderExpectedCoin: 25_000_000n,
      orderState: 'paid',
    });
    // A delivery written before orders had figures: the shop checks the deposit alone.
    const legacy = await seedDelivery(db.pool, {
      walletId: wallet.id,
      valueCoin: 25_000_000n,
      valueForwardedCoin: 24_750_000n,
      feeCoin: 250_000n,
    });
    await enqueueDeliveries(worker.callbackQueue, [paid, legacy]);
    await delivered(paid);
    await delivered(legacy);

    const received = stub.receivedOn('/ipn.php');
    expect(received).toHaveLength(3);
    const byDelivery = (id: string) => received.find((request) => request.headers[CALLBACK_DELIVERY_ID_HEADER] === id)!;
    const asCase = (name: string, request: ReceivedCallback, changes: Partial<Case> = {}): Case => ({
      name,
      check: 'order',
      url: `${stub.origin}${request.url}`,
      header: String(request.headers[CALLBACK_SIGNATURE_HEADER]),
      deliveryId: String(request.headers[CALLBACK_DELIVERY_ID_HEADER]),
      payoutAddress: wallet.payoutAddress,
      ipnToken: wallet.ipnToken,
      amount: '24',
      now: Math.floor(Date.now() / 1000),
      ...changes,
    });
    const [underpaidRequest, paidRequest, legacyRequest] = [byDelivery(sent.ids[0]!), byDelivery(paid), byDelivery(legacy)];
    const paidCase = asCase('paid', paidRequest);
    const header = paidCase.header!;
    const cases: Case[] = [
      paidCase,
      asCase('underpaid', underpaidRequest),
      asCase('state changed', paidRequest, { url: asCase('', underpaidRequest).url.replace('order_state=underpaid', 'order_state=paid') }),
      asCase('replayed under another delivery id', paidRequest, { deliveryId: legacy }),
      asCase('no delivery id', paidRequest, { deliveryId: null }),
      asCase('stale', paidRequest, { now: paidCase.now + 301 }),
      asCase('v2 stripped', paidRequest, { header: header.replace(/,v2=[^,]+/g, '') }),
      asCase('malformed header', paidRequest, { header: header.replace(/^t=\d+/, 't=soon') }),
      asCase('no header', paidRequest, { header: null }),
      asCase('another payout address', paidRequest, { payoutAddress: `0x${'ab'.repeat(20)}` }),
      asCase('payout address in another case', paidRequest, { payoutAddress: wallet.payoutAddress.toUpperCase().replace('0X', '0x') }),
      asCase('another wallet', paidRequest, { ipnToken: `${wallet.ipnToken}x` }),
      asCase('attempt made for less than the price', paidRequest, { amount: '25.000001' }),
      asCase('expectation compared by the shop', paidRequest, { amount: false }),
      asCase('no order figures', legacyRequest),
      asCase('deposit: share covers the order', legacyRequest, { check: 'deposit', amount: '24.75' }),
      asCase('deposit: share short of the order', legacyRequest, { check: 'deposit', amount: '24.750001' }),
      asCase('deposit: without the ipn token', legacyRequest, { check: 'deposit', amount: '24.75', ipnToken: null }),
    ];
    // The shop pinned both keys of a rotation: the worker's current one and one rotated out.
    const keys = [publicKeyToJwk(fixture.key.publicKey, fixture.key.kid), publicKeyToJwk(rotatedOut.publicKey, rotatedOut.kid)];

    const sdk = cases.map((input) => sdkAnswer(input, keys));
    // The cases say what they are: each valid one passes and each forged one fails, for the SDK first.
    expect(Object.fromEntries(cases.map((input, index) => [input.name, sdk[index]]))).toEqual({
      paid: { ok: true, delivery_id: paid, state: 'paid', paid: true, total: '25.000001', expected: '25' },
      underpaid: { ok: true, delivery_id: sent.ids[0], state: 'underpaid', paid: false, total: '10', expected: '25' },
      'state changed': { ok: false, reason: 'no_matching_signature' },
      'replayed under another delivery id': { ok: false, reason: 'no_matching_signature' },
      'no delivery id': { ok: false, reason: 'invalid_delivery_id' },
      stale: { ok: false, reason: 'timestamp_out_of_tolerance' },
      'v2 stripped': { ok: false, reason: 'v2_required' },
      'malformed header': { ok: false, reason: 'malformed_header' },
      'no header': { ok: false, reason: 'malformed_header' },
      'another payout address': { ok: false, reason: 'address_out_mismatch' },
      'payout address in another case': { ok: true, delivery_id: paid, state: 'paid', paid: true, total: '25.000001', expected: '25' },
      'another wallet': { ok: false, reason: 'ipn_token_mismatch' },
      'attempt made for less than the price': { ok: false, reason: 'expectation_below_minimum' },
      'expectation compared by the shop': { ok: true, delivery_id: paid, state: 'paid', paid: true, total: '25.000001', expected: '25' },
      'no order figures': { ok: false, reason: 'no_order_figures' },
      'deposit: share covers the order': { ok: true, delivery_id: legacy },
      'deposit: share short of the order': { ok: false, reason: 'amount_below_expected' },
      'deposit: without the ipn token': { ok: true, delivery_id: legacy },
    });
    expect(runPhp(cases, keys)).toEqual(sdk);
    expect(runPython(cases, keys)).toEqual(sdk);
  });

  it('refuse a key that is not an Ed25519 JWK, as the SDK throws for one', () => {
    const request = { url: `${stub.origin}/ipn.php` };
    const badKeys = [{ kty: 'EC', crv: 'P-256', x: 'AAAA' }];
    const php = spawnSync(
      PHP,
      [
        '-r',
        `require $argv[1]; gateway_verify_callback('${request.url}', null, null, json_decode($argv[2], true), '0x${'ab'.repeat(20)}', null, false);`,
        join(EXAMPLES, 'php/gateway-callback.php'),
        JSON.stringify(badKeys),
      ],
      { encoding: 'utf8' },
    );
    expect(php.status).not.toBe(0);
    expect(php.stderr + php.stdout).toMatch(/must be an Ed25519 JWK/);
    const python = spawnSync(
      PYTHON,
      [
        '-c',
        `import json, sys; sys.path.insert(0, sys.argv[1]); from gateway_callback import verify_callback; verify_callback('${request.url}', None, None, json.loads(sys.argv[2]), '0x${'ab'.repeat(20)}', None, False)`,
        join(EXAMPLES, 'python'),
        JSON.stringify(badKeys),
      ],
      { encoding: 'utf8' },
    );
    expect(python.status).not.toBe(0);
    expect(python.stderr).toMatch(/must be an Ed25519 JWK/);
  });
});
