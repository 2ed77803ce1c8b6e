import type { FastifyBaseLogger } from 'fastify';
import type { DerivedAddress, WalletRepository } from '@gateway/db';
import type { TemporaryAddressDeriver } from '@gateway/chain';

export interface AddressSupplyOptions {
  /** Keep this many derived addresses in the pool (0: never derive ahead). */
  target: number;
  lowWater: number;
  claimBatch: number;
  /** How often the keeper looks at the pool. */
  checkIntervalMs?: number;
}

// ~1.3 ms each: a chunk of 20 holds the event loop for ~25 ms at most.
const DERIVE_CHUNK = 20;

/**
 * Hands out temporary addresses for new wallets. Deriving one costs about a millisecond of CPU,
 * several times the rest of Create Wallet, so a keeper derives them ahead into a shared
 * PostgreSQL pool while the service is idle, and each process claims a batch at a time. When
 * the pool is empty, an address is derived on the spot: slower, never wrong.
 */
export class AddressSupply {
  private buffer: DerivedAddress[] = [];
  private claiming: Promise<void> | undefined;
  private keeperTimer: NodeJS.Timeout | undefined;
  private topping: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly wallets: WalletRepository,
    private readonly deriver: TemporaryAddressDeriver,
    private readonly options: AddressSupplyOptions,
    private readonly log: FastifyBaseLogger,
  ) {}

  async take(): Promise<DerivedAddress> {
    while (this.buffer.length === 0) {
      this.claiming ??= this.claim().finally(() => (this.claiming = undefined));
      const claimedNone = await this.claiming.then(() => this.buffer.length === 0);
      if (claimedNone) return this.deriveNow();
    }
    return this.buffer.shift() as DerivedAddress;
  }

  /** An address taken for a wallet that turned out to exist already is still unused. */
  giveBack(address: DerivedAddress): void {
    this.buffer.unshift(address);
  }

  startKeeper(): void {
    if (this.options.target === 0) return;
    const tick = () => {
      this.topping ??= this.topUp()
        .then(() => undefined)
        .catch((error: Error) => this.log.warn({ err: error }, 'address pool top-up failed; will retry'))
        .finally(() => (this.topping = undefined));
    };
    tick();
    this.keeperTimer = setInterval(tick, this.options.checkIntervalMs ?? 2_000);
    this.keeperTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.keeperTimer) clearInterval(this.keeperTimer);
    await this.topping;
  }

  /** Derives into the pool until it holds `target` addresses, yielding to requests between chunks. */
  async topUp(): Promise<number> {
    let available = await this.wallets.countAddressPool();
    if (available >= this.options.lowWater && available > 0) return 0;
    let added = 0;
    while (available < this.options.target && !this.stopped) {
      const count = Math.min(DERIVE_CHUNK, this.options.target - available);
      const indexes = await this.wallets.reserveHdIndexes(count);
      const derived = indexes.map((hdIndex) => ({ hdIndex, polygonAddress: this.deriver.addressAt(hdIndex) }));
      await this.wallets.addToAddressPool(derived);
      available += count;
      added += count;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (added > 0) this.log.info({ added, available }, 'address pool topped up');
    return added;
  }

  private async claim(): Promise<void> {
    this.buffer.push(...(await this.wallets.claimFromAddressPool(this.options.claimBatch)));
  }

  private async deriveNow(): Promise<DerivedAddress> {
    const [hdIndex] = await this.wallets.reserveHdIndexes(1);
    if (hdIndex === undefined) throw new Error('the HD index sequence returned nothing');
    return { hdIndex, polygonAddress: this.deriver.addressAt(hdIndex) };
  }
}
