import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, runGateway, seedDeposit, seedPayout, seedWallet, type TestDatabase } from '@gateway/app-testkit';
import { GatewayError, parseLedgerQuery, unknownLedgerPayoutAddress } from '@gateway/domain';
import { parseCsvObjects } from '@gateway/testkit';

// `gateway ledger export`: the endpoint's refusals in the same words, a usage error's exit code 2,
// the unknown address's 1, stdout or a file written whole.

let db: TestDatabase;
const env = () => ({ DATABASE_URL: db.connectionString, DATABASE_SCHEMA: db.schema });
const payout = `0x${randomBytes(20).toString('hex')}`;
let walletId: string;

beforeAll(async () => {
  db = await createTestDatabase('cli_ledger');
  ({ id: walletId } = await seedWallet(db.pool, { payoutAddress: payout, createdAt: new Date('2026-11-05T10:00:00Z') }));
  const { id: depositId } = await seedDeposit(db.pool, { walletId, amount: 12_000_000n, status: 'forwarded' });
  await seedPayout(db.pool, { depositId, leg: 'merchant', toAddress: payout, amount: 11_880_000n, status: 'confirmed' });
});
afterAll(() => db?.drop());

const exportArgs = (...rest: string[]) => [
  'ledger',
  'export',
  '--payout-address',
  payout,
  '--from',
  '2026-11-01',
  '--to',
  '2026-12-01',
  ...rest,
];

/** What GET /admin/ledger answers as `error` for the same parameters. */
function endpointMessage(input: Parameters<typeof parseLedgerQuery>[0]): string {
  try {
    parseLedgerQuery(input);
  } catch (error) {
    if (error instanceof GatewayError) return error.message;
  }
  throw new Error('accepted');
}

describe('gateway ledger export', () => {
  it('writes the CSV to stdout', async () => {
    const run = await runGateway(exportArgs(), env());
    expect(run.code).toBe(0);
    expect(parseCsvObjects(run.stdout)).toMatchObject([{ order_id: walletId, total_usdc: '12.000000', merchant_paid_usdc: '11.880000' }]);
  });

  it('writes JSON Lines to a file, whole, and says how many orders', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    const out = join(dir, 'november.jsonl');
    const run = await runGateway(exportArgs('--format', 'json', '--out', out), env());
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: `wrote 1 order(s) to ${out}\n`,
    });
    expect(readdirSync(dir)).toEqual(['november.jsonl']);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([{ order_id: walletId, paid: { merchant_usdc: '11.880000' } }]);
  });

  it.each([
    ['a malformed address', ['--payout-address', '0x12'], { payout_address: '0x12', from: '2026-11-01', to: '2026-12-01' }],
    ['from after to', ['--from', '2026-12-02'], { payout_address: payout, from: '2026-12-02', to: '2026-12-01' }],
    ['an unparsable to', ['--to', 'soon'], { payout_address: payout, from: '2026-11-01', to: 'soon' }],
    ['a range too long', ['--from', '2025-01-01'], { payout_address: payout, from: '2025-01-01', to: '2026-12-01' }],
  ])('refuses %s as the endpoint does, exit code 2', async (_what, override, input) => {
    const args = exportArgs();
    for (let i = 0; i < override.length; i += 2) args[args.indexOf(override[i]!) + 1] = override[i + 1]!;
    const run = await runGateway(args, env());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toBe(`gateway ledger export: ${endpointMessage(input)}`);
  });

  it('refuses a payout address no order pays as the endpoint does (its 404), exit code 1, writing no file', async () => {
    const stranger = `0x${'cd'.repeat(20)}`;
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    const run = await runGateway(
      ['ledger', 'export', '--payout-address', stranger, '--from', '2026-11-01', '--to', '2026-12-01', '--out', join(dir, 'x.csv')],
      env(),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`gateway ledger export: ${unknownLedgerPayoutAddress(stranger).message}\n`);
    expect(readdirSync(dir)).toEqual([]);
  });
});
