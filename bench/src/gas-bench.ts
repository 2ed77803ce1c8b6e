// Gas per forwarded deposit, measured on a local chain (anvil, chain id 137) with the test USDC:
// EIP-3009 relaying (what the settlement worker does: the temporary wallet signs one
// transferWithAuthorization per leg, a relayer sends them and pays the gas) beside the
// alternative of funding the temporary wallet with native gas and sending plain transfers.
// `pnpm --filter @gateway/bench bench:gas`; results in bench/results/gas.json. It takes seconds, so
// BENCH_SMOKE=1 runs it whole (its JSON under bench/results/smoke/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  http,
  parseAbi,
  type Address,
  type Hash,
  type LocalAccount,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  defineLocalChain,
  deployTestUsdc,
  encodeTransferWithAuthorization,
  mintTestUsdc,
  randomAuthorizationNonce,
  readTokenDomain,
  signTransferAuthorization,
  type TokenDomain,
} from '@gateway/chain';
import { anvilAccounts, startAnvil, type RunningAnvil } from '@gateway/testkit';
import { resultsFile } from './bench-mode';

const RESULTS_FILE = resultsFile('gas.json');
const USDC = 1_000_000n;
const DEPOSIT = 100n * USDC;
const PLATFORM_FEE_BPS = 100n;
const AFFILIATE_FEE_BPS = 50n;
const transferAbi = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

type Method = 'eip3009-relay' | 'fund-then-transfer';

interface Step {
  what: string;
  gasUsed: bigint;
}

interface Scenario {
  method: Method;
  recipients: 'new' | 'existing';
  legs: 2 | 3;
  steps: Step[];
  totalGas: bigint;
  /** Native currency left in the temporary wallet (wei): the funding model strands it there. */
  strandedNativeWei: bigint;
}

interface Recipients {
  merchant: Address;
  platform: Address;
  affiliate: Address;
}

const freshAccount = (): LocalAccount => privateKeyToAccount(generatePrivateKey());

class GasBench {
  private readonly publicClient: PublicClient;
  private readonly relayer = privateKeyToAccount(anvilAccounts[1].privateKey);

  constructor(
    private readonly anvil: RunningAnvil,
    private readonly token: Address,
    private readonly domain: TokenDomain,
  ) {
    this.publicClient = createPublicClient({
      chain: defineLocalChain(anvil),
      transport: http(anvil.rpcUrl, { retryCount: 0 }),
      pollingInterval: 50,
    }) as PublicClient;
  }

  private walletClient(account: LocalAccount) {
    return createWalletClient({ account, chain: defineLocalChain(this.anvil), transport: http(this.anvil.rpcUrl, { retryCount: 0 }) });
  }

  private async gasOf(hash: Hash): Promise<{ gasUsed: bigint; cost: bigint }> {
    const receipt = await this.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`benchmark transaction ${hash} reverted`);
    return { gasUsed: receipt.gasUsed, cost: receipt.gasUsed * receipt.effectiveGasPrice };
  }

  /** A temporary wallet holding one deposit, as the customer's provider leaves it. */
  private async depositInto(): Promise<LocalAccount> {
    const wallet = freshAccount();
    await mintTestUsdc({
      rpcUrl: this.anvil.rpcUrl,
      chainId: this.anvil.chainId,
      token: this.token,
      ownerKey: anvilAccounts[0].privateKey,
      to: wallet.address,
      amount: DEPOSIT,
    });
    return wallet;
  }

  private split(legs: 2 | 3, to: Recipients): { what: string; to: Address; value: bigint }[] {
    const platform = (DEPOSIT * PLATFORM_FEE_BPS) / 10_000n;
    const affiliate = legs === 3 ? (DEPOSIT * AFFILIATE_FEE_BPS) / 10_000n : 0n;
    const payouts = [
      { what: 'merchant leg', to: to.merchant, value: DEPOSIT - platform - affiliate },
      { what: 'platform fee leg', to: to.platform, value: platform },
    ];
    if (legs === 3) payouts.push({ what: 'affiliate leg', to: to.affiliate, value: affiliate });
    return payouts;
  }

  async relayed(legs: 2 | 3, to: Recipients, recipients: Scenario['recipients']): Promise<Scenario> {
    const wallet = await this.depositInto();
    const relayerClient = this.walletClient(this.relayer);
    const validBefore = (await this.publicClient.getBlock()).timestamp + 3_600n;
    const steps: Step[] = [];
    for (const leg of this.split(legs, to)) {
      const authorization = {
        from: wallet.address,
        to: leg.to,
        value: leg.value,
        validAfter: 0n,
        validBefore,
        nonce: randomAuthorizationNonce(),
      };
      const signature = await signTransferAuthorization(wallet, this.domain, authorization);
      const hash = await relayerClient.sendTransaction({ to: this.token, data: encodeTransferWithAuthorization(authorization, signature) });
      steps.push({ what: `transferWithAuthorization: ${leg.what}`, gasUsed: (await this.gasOf(hash)).gasUsed });
    }
    return this.scenario('eip3009-relay', recipients, legs, steps, await this.publicClient.getBalance({ address: wallet.address }));
  }

  async funded(legs: 2 | 3, to: Recipients, recipients: Scenario['recipients']): Promise<Scenario> {
    const wallet = await this.depositInto();
    const payouts = this.split(legs, to);
    // Enough native for every transfer at today's fee cap, as a funding service would send.
    const { maxFeePerGas } = await this.publicClient.estimateFeesPerGas();
    const funding = BigInt(payouts.length) * 80_000n * maxFeePerGas;
    const fundHash = await this.walletClient(this.relayer).sendTransaction({ to: wallet.address, value: funding });
    const steps: Step[] = [{ what: 'fund temporary wallet with native gas', gasUsed: (await this.gasOf(fundHash)).gasUsed }];
    const walletClient = this.walletClient(wallet);
    for (const leg of payouts) {
      const hash = await walletClient.writeContract({
        address: this.token,
        abi: transferAbi,
        functionName: 'transfer',
        args: [leg.to, leg.value],
      });
      steps.push({ what: `transfer: ${leg.what}`, gasUsed: (await this.gasOf(hash)).gasUsed });
    }
    return this.scenario('fund-then-transfer', recipients, legs, steps, await this.publicClient.getBalance({ address: wallet.address }));
  }

  private scenario(method: Method, recipients: Scenario['recipients'], legs: 2 | 3, steps: Step[], strandedNativeWei: bigint): Scenario {
    return { method, recipients, legs, steps, totalGas: steps.reduce((sum, step) => sum + step.gasUsed, 0n), strandedNativeWei };
  }
}

function freshRecipients(): Recipients {
  return { merchant: freshAccount().address, platform: freshAccount().address, affiliate: freshAccount().address };
}

function printTable(scenarios: Scenario[]): void {
  const baseline = (s: Scenario) =>
    scenarios.find((b) => b.method === 'eip3009-relay' && b.recipients === s.recipients && b.legs === s.legs)?.totalGas ?? s.totalGas;
  const rows = scenarios.map((s) => [
    s.method,
    String(s.legs),
    s.recipients,
    s.steps.map((step) => step.gasUsed.toString()).join(' + '),
    s.totalGas.toString(),
    `${((Number(s.totalGas) / Number(baseline(s))) * 100).toFixed(0)}%`,
    s.strandedNativeWei > 0n ? `${s.strandedNativeWei} wei` : '0',
  ]);
  const header = ['method', 'legs', 'recipients', 'gas per transaction', 'total gas', 'vs 3009', 'native left in temp wallet'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

async function main(): Promise<void> {
  const anvil = await startAnvil();
  try {
    const token = await deployTestUsdc({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, deployerKey: anvilAccounts[0].privateKey });
    const probe = createPublicClient({ chain: defineLocalChain(anvil), transport: http(anvil.rpcUrl, { retryCount: 0 }) });
    const bench = new GasBench(anvil, token, await readTokenDomain(probe, token));
    const scenarios: Scenario[] = [];
    for (const legs of [2, 3] as const) {
      // Fresh recipients first (their first USDC costs a new storage slot), then the same ones again.
      const relayTo = freshRecipients();
      scenarios.push(await bench.relayed(legs, relayTo, 'new'), await bench.relayed(legs, relayTo, 'existing'));
      const fundTo = freshRecipients();
      scenarios.push(await bench.funded(legs, fundTo, 'new'), await bench.funded(legs, fundTo, 'existing'));
    }
    scenarios.sort((a, b) => a.legs - b.legs || a.recipients.localeCompare(b.recipients) || a.method.localeCompare(b.method));
    printTable(scenarios);
    mkdirSync(dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(
      RESULTS_FILE,
      `${JSON.stringify(
        {
          generatedAt: new Date().toISOString(),
          chain: { node: 'anvil (@foundry-rs/anvil)', chainId: anvil.chainId, token: 'TestUSDC (FiatTokenV2-style EIP-3009)' },
          deposit: DEPOSIT.toString(),
          platformFeeBps: Number(PLATFORM_FEE_BPS),
          affiliateFeeBps: Number(AFFILIATE_FEE_BPS),
          notes: [
            'eip3009-relay: one transferWithAuthorization per leg, sent and paid for by the relayer; the temporary wallet never ' +
              'holds native currency.',
            'fund-then-transfer: the relayer first sends native gas to the temporary wallet, which then sends plain transfer() per ' +
              'leg; the unspent native stays stranded there unless swept back (another 21000 gas per wallet, not counted here).',
            'transferWithAuthorization costs ~31k more per leg than transfer(): it writes the (authorizer, nonce) slot (a new 20k ' +
              'storage write), runs ecrecover and carries ~290 more bytes of calldata. That slot is also what makes each leg ' +
              'payable at most once.',
            '"new" recipients hold no USDC before the payout (a fresh storage slot); "existing" recipients already do.',
          ],
          scenarios: scenarios.map((s) => ({
            ...s,
            steps: s.steps.map((step) => ({ what: step.what, gasUsed: Number(step.gasUsed) })),
            totalGas: Number(s.totalGas),
            strandedNativeWei: s.strandedNativeWei.toString(),
          })),
        },
        null,
        2,
      )}\n`,
    );
    console.log(`\nwritten to ${RESULTS_FILE}`);
  } finally {
    await anvil.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
