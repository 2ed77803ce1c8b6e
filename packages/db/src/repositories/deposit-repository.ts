import type { Pool } from 'pg';
import type { Queryable } from './chain-cursor-repository';
import type { AttemptJson, PaymentAttemptRecord } from './wallet-attempts';
import { attemptJson, attemptsReporting, latestAttempts, readAttempts } from './wallet-attempts';

/** A USDC Transfer log into a temporary wallet, as the chain watcher read it. */
export interface NewDeposit {
  /** The token contract that emitted the Transfer (the settled USDC or the other one), lower-case hex. */
  token: string;
  txHash: string;
  /** Position of the log in its block. */
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  /** When the block was made (its header's timestamp): what the ledger dates a deposit by (migration 031). */
  blockTime: Date;
  walletId: string;
  fromAddress: string;
  /** Token base units; always > 0 (zero-value transfers are not deposits). */
  amount: bigint;
}

export interface WrittenDeposit {
  id: string;
  /** false: the row existed (orphaned, or seen in another block) and was brought back to `seen`. */
  inserted: boolean;
  /** Its token, lower-case hex (null in rows no app wrote, migration 023). */
  token: string | null;
}

/** A new deposit and the payments of its wallet it may be credited to (attemptThatPaid in packages/domain). */
export interface DepositCheckouts {
  depositId: string;
  txHash: string;
  seenAt: Date;
  /** Newest first: the one whose provider reported this transaction, and the latest created before the deposit was seen. */
  attempts: PaymentAttemptRecord[];
}

/** What an address of the gateway itself is (see DepositRepository.gatewaySenders). */
export type GatewaySender = 'temporary_wallet' | 'relayer' | 'platform_fee';

/** A block holding deposits, by the hash recorded when they were read. */
export interface DepositBlock {
  blockNumber: bigint;
  blockHash: string;
}

/**
 * A deposit as the finality pass reads it back to check it against its transaction's receipt: a
 * `seen` one whose block the chain answered with another hash, or an `orphaned` one.
 */
export interface RecordedDeposit extends Omit<NewDeposit, 'token' | 'blockTime'> {
  id: string;
  /** NULL in rows no app wrote (see migration 023): the token the database counts in. */
  token: string | null;
  /** The temporary wallet's address (the Transfer's `to`), lower-case. */
  walletAddress: string;
}

const RECORDED_DEPOSIT_COLUMNS = `d.id::text AS id, d.tx_hash AS "txHash", d.log_index AS "logIndex",
  d.block_number::text AS "blockNumber", d.block_hash AS "blockHash", d.wallet_id::text AS "walletId", d.token,
  w.polygon_address AS "walletAddress", d.from_address AS "fromAddress", d.amount::text AS amount`;

// Callers pass at most a few thousand blocks; unnest keeps each statement one round trip.
const BLOCK_PAIRS = `unnest($2::bigint[], $3::text[]) AS b(block_number, block_hash)`;

/** The chain side of deposits: written by the chain watcher, from `seen` up to `final` or `orphaned`. */
export class DepositRepository {
  constructor(
    private readonly pool: Pool,
    private readonly chainId: number,
  ) {}

  /**
   * Which of `addresses` (lower-case hex) are temporary wallets, in one indexed query
   * (wallets.polygon_address is unique): address → wallet id.
   */
  async matchTemporaryWallets(addresses: readonly string[]): Promise<Map<string, string>> {
    if (addresses.length === 0) return new Map();
    const { rows } = await this.pool.query<{ id: string; address: string }>({
      name: 'deposit-match-wallets',
      text: `SELECT id::text AS id, polygon_address AS address FROM wallets WHERE polygon_address = ANY($1::text[])`,
      values: [addresses],
    });
    return new Map(rows.map((row) => [row.address, row.id]));
  }

  /**
   * Which of `addresses` (lower-case hex) belong to the gateway itself: a temporary wallet, or an
   * address the settlement worker registered (relayer, platform fee). USDC they send into a
   * temporary wallet is the gateway moving its own money, not a customer's deposit. One query
   * over two unique indexes: address → what it is.
   */
  async gatewaySenders(addresses: readonly string[]): Promise<Map<string, GatewaySender>> {
    if (addresses.length === 0) return new Map();
    const { rows } = await this.pool.query<{ address: string; role: GatewaySender }>({
      name: 'deposit-gateway-senders',
      text: `SELECT polygon_address AS address, 'temporary_wallet' AS role FROM wallets WHERE polygon_address = ANY($1::text[])
             UNION ALL
             SELECT address, role FROM gateway_addresses WHERE address = ANY($1::text[])`,
      values: [addresses],
    });
    return new Map(rows.map((row) => [row.address, row.role]));
  }

  /**
   * Writes deposits as `seen`, once per (chain, tx hash, log index): reading a range again adds
   * nothing. A row that was orphaned and whose log is back on the canonical chain, or an unfinal
   * row now read from another block, is brought back to `seen` with the block it is in now.
   * Returns the rows inserted or brought back. A log's token never changes (a log index belongs to
   * one contract's event), so it is written once, with the row.
   */
  async recordSeen(db: Queryable, deposits: readonly NewDeposit[]): Promise<WrittenDeposit[]> {
    if (deposits.length === 0) return [];
    const { rows } = await db.query<WrittenDeposit>({
      name: 'deposit-record-seen',
      text: `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, token,
                                 block_time)
             SELECT $1, * FROM unnest($2::text[], $3::int[], $4::bigint[], $5::text[], $6::bigint[], $7::text[], $8::numeric[],
                                      $9::text[], $10::timestamptz[])
             ON CONFLICT (chain_id, tx_hash, log_index) DO UPDATE
               SET status = 'seen', block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash,
                   block_time = EXCLUDED.block_time, wallet_id = EXCLUDED.wallet_id, from_address = EXCLUDED.from_address, amount = EXCLUDED.amount,
                   seen_at = now()
               WHERE deposits.status = 'orphaned'
                  OR (deposits.status = 'seen' AND deposits.block_hash <> EXCLUDED.block_hash)
             RETURNING id::text AS id, (xmax = 0) AS inserted, token`,
      values: [
        this.chainId,
        deposits.map((d) => d.txHash.toLowerCase()),
        deposits.map((d) => d.logIndex),
        deposits.map((d) => d.blockNumber.toString()),
        deposits.map((d) => d.blockHash.toLowerCase()),
        deposits.map((d) => d.walletId),
        deposits.map((d) => d.fromAddress.toLowerCase()),
        deposits.map((d) => d.amount.toString()),
        deposits.map((d) => d.token.toLowerCase()),
        deposits.map((d) => d.blockTime),
      ],
    });
    return rows;
  }

  /**
   * For the time from checkout to USDC received: each deposit with the payments of its wallet it
   * may be credited to, those whose provider reported its transaction and the latest twenty created
   * before it was seen (a wallet is one order; older ones cannot be credited). Two index look-ups
   * (payments_provider_tx_hash_idx, payments_wallet_created_idx backwards), however many attempts
   * the order has.
   */
  async checkoutsOf(depositIds: readonly string[]): Promise<DepositCheckouts[]> {
    if (depositIds.length === 0) return [];
    const { rows } = await this.pool.query<{ deposit_id: string; tx_hash: string; seen_at: Date; attempts: AttemptJson[] | null }>({
      name: 'deposit-checkouts',
      text: `SELECT d.id::text AS deposit_id, d.tx_hash, d.seen_at,
                    (SELECT json_agg(${attemptJson('a')})
                     FROM (SELECT * FROM ${attemptsReporting('d')} r
                           UNION
                           SELECT * FROM ${latestAttempts('d.wallet_id', 20, 'created_at <= d.seen_at')} l) a) AS attempts
             FROM deposits d WHERE d.chain_id = $1 AND d.id = ANY($2::bigint[])`,
      values: [this.chainId, depositIds],
    });
    return rows.map((row) => ({
      depositId: row.deposit_id,
      txHash: row.tx_hash,
      seenAt: row.seen_at,
      attempts: readAttempts(row.attempts),
    }));
  }

  /** The blocks holding `seen` (unfinal) deposits, oldest first. */
  async unfinalBlocks(limit = 5_000): Promise<DepositBlock[]> {
    const { rows } = await this.pool.query<{ blockNumber: string; blockHash: string }>({
      name: 'deposit-unfinal-blocks',
      text: `SELECT block_number::text AS "blockNumber", block_hash AS "blockHash" FROM deposits
             WHERE chain_id = $1 AND status = 'seen'
             GROUP BY block_number, block_hash ORDER BY block_number LIMIT $2`,
      values: [this.chainId, limit],
    });
    return rows.map(toDepositBlock);
  }

  /** The `seen` deposits read from these blocks (by the hash recorded), with their wallets' addresses. */
  async seenInBlocks(blocks: readonly DepositBlock[]): Promise<RecordedDeposit[]> {
    if (blocks.length === 0) return [];
    const { rows } = await this.pool.query<RecordedRow>({
      name: 'deposit-seen-in-blocks',
      text: `SELECT ${RECORDED_DEPOSIT_COLUMNS} FROM deposits d JOIN wallets w ON w.id = d.wallet_id, ${BLOCK_PAIRS}
             WHERE d.chain_id = $1 AND d.status = 'seen' AND d.block_number = b.block_number AND d.block_hash = b.block_hash
             ORDER BY d.id`,
      values: [this.chainId, blocks.map((b) => b.blockNumber.toString()), blocks.map((b) => b.blockHash.toLowerCase())],
    });
    return rows.map(toRecordedDeposit);
  }

  /**
   * Orphaned deposits whose block is above `finalized` (all of them while no block is final yet),
   * newest first: they are read again until the finalized block passes them.
   */
  async orphansAbove(finalized: bigint | undefined, limit = 200): Promise<RecordedDeposit[]> {
    const { rows } = await this.pool.query<RecordedRow>({
      name: 'deposit-orphans-above',
      text: `SELECT ${RECORDED_DEPOSIT_COLUMNS} FROM deposits d JOIN wallets w ON w.id = d.wallet_id
             WHERE d.chain_id = $1 AND d.status = 'orphaned' AND ($2::bigint IS NULL OR d.block_number > $2)
             ORDER BY d.block_number DESC, d.id DESC LIMIT $3`,
      values: [this.chainId, finalized?.toString() ?? null, limit],
    });
    return rows.map(toRecordedDeposit);
  }

  /**
   * Blocks strictly between `above` and `below` that hold deposits which are not orphaned,
   * newest first: after a reorg, the newest of them still canonical is a common ancestor.
   */
  async recordedBlocksBetween(above: bigint, below: bigint, limit = 100): Promise<DepositBlock[]> {
    const { rows } = await this.pool.query<{ blockNumber: string; blockHash: string }>({
      name: 'deposit-recorded-blocks-between',
      text: `SELECT block_number::text AS "blockNumber", block_hash AS "blockHash" FROM deposits
             WHERE chain_id = $1 AND block_number > $2 AND block_number < $3 AND status <> 'orphaned'
             GROUP BY block_number, block_hash ORDER BY block_number DESC LIMIT $4`,
      values: [this.chainId, above.toString(), below.toString(), limit],
    });
    return rows.map(toDepositBlock);
  }

  /** `seen` → `orphaned` for the deposits read from these blocks (the chain dropped them). */
  async markOrphaned(db: Queryable, blocks: readonly DepositBlock[]): Promise<string[]> {
    return this.moveSeen(db, 'orphaned', blocks);
  }

  /** `seen` → `final` for the deposits read from these blocks; returns their ids. */
  async markFinal(db: Queryable, blocks: readonly DepositBlock[]): Promise<string[]> {
    return this.moveSeen(db, 'final', blocks);
  }

  private async moveSeen(db: Queryable, status: 'final' | 'orphaned', blocks: readonly DepositBlock[]): Promise<string[]> {
    if (blocks.length === 0) return [];
    const { rows } = await db.query<{ id: string }>({
      name: `deposit-mark-${status}`,
      text: `UPDATE deposits d SET status = '${status}'${status === 'final' ? ', final_at = now()' : ''}
             FROM ${BLOCK_PAIRS}
             WHERE d.chain_id = $1 AND d.status = 'seen' AND d.block_number = b.block_number AND d.block_hash = b.block_hash
             RETURNING d.id::text AS id`,
      values: [this.chainId, blocks.map((b) => b.blockNumber.toString()), blocks.map((b) => b.blockHash.toLowerCase())],
    });
    return rows.map((row) => row.id);
  }
}

type RecordedRow = Omit<RecordedDeposit, 'blockNumber' | 'amount'> & { blockNumber: string; amount: string };

function toRecordedDeposit(row: RecordedRow): RecordedDeposit {
  return { ...row, blockNumber: BigInt(row.blockNumber), amount: BigInt(row.amount) };
}

function toDepositBlock(row: { blockNumber: string; blockHash: string }): DepositBlock {
  return { blockNumber: BigInt(row.blockNumber), blockHash: row.blockHash };
}
