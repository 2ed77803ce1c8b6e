import type { DerivedAddress, WalletRepository } from '@gateway/db/wallet-control';
import type { TemporaryAddressDeriver } from '@gateway/chain';

export interface AddressSupplyOptions {
  /** HD indexes reserved from the sequence in one round trip. */
  reserveBatch: number;
  /** Told the highest index of each batch reserved (the HD index space gauge). */
  onReserved?: (highestIndex: bigint) => void;
}

/**
 * Hands out temporary addresses for new wallets: HD indexes are reserved from the database's
 * sequence a batch at a time (one round trip per batch, not per wallet) and each address is
 * derived on the spot with libsecp256k1 (~50 µs). Indexes reserved by a process that stops are
 * never used: gaps are harmless, the chain side matches wallets by address.
 */
export class AddressSupply {
  private indexes: bigint[] = [];
  /** Addresses taken for a wallet that existed already: unused, handed out next. */
  private returned: DerivedAddress[] = [];
  private reserving: Promise<void> | undefined;

  constructor(
    private readonly wallets: WalletRepository,
    private readonly deriver: TemporaryAddressDeriver,
    private readonly options: AddressSupplyOptions,
  ) {}

  get keyFingerprint(): string {
    return this.deriver.fingerprint;
  }

  async take(): Promise<DerivedAddress> {
    const unused = this.returned.pop();
    if (unused) return unused;
    while (this.indexes.length === 0) await this.reserve();
    const hdIndex = this.indexes.shift() as bigint;
    // The next batch is asked for while half of this one is left: a request that finds none waits
    // a round trip to PostgreSQL, and under load so does every new wallet behind it (at 100 a batch
    // and ~2,500 new wallets/s, 25 stalls a second). A failure here is the next wait's to report.
    if (this.indexes.length < this.options.reserveBatch / 2) this.reserve().catch(() => undefined);
    return { hdIndex, polygonAddress: this.deriver.addressAt(hdIndex) };
  }

  private reserve(): Promise<void> {
    this.reserving ??= this.wallets
      .reserveHdIndexes(this.options.reserveBatch)
      .then((indexes) => {
        this.indexes.push(...indexes);
        const highest = indexes.reduce((max, index) => (index > max ? index : max), -1n);
        if (highest >= 0n) this.options.onReserved?.(highest);
      })
      .finally(() => (this.reserving = undefined));
    return this.reserving;
  }

  giveBack(address: DerivedAddress): void {
    this.returned.push(address);
  }
}
