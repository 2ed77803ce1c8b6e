export type Release = () => void;

interface HostSlots {
  active: number;
  waiting: Array<(release: Release) => void>;
}

/**
 * Bounds the callbacks in flight per merchant host, so a slow merchant holds at most `perHost`
 * requests. A few more may queue behind them (`maxWaitingPerHost`); beyond that `acquire` says no
 * at once, and the caller hands the job back to the queue for a little later instead of occupying a
 * worker slot that callbacks to other merchants need.
 */
export class HostLimiter {
  private readonly hosts = new Map<string, HostSlots>();

  constructor(
    private readonly perHost: number,
    private readonly maxWaitingPerHost: number,
  ) {}

  /** A release function once a slot is free, or undefined when the host is saturated. */
  acquire(host: string): Promise<Release | undefined> {
    const slots = this.hosts.get(host) ?? { active: 0, waiting: [] };
    this.hosts.set(host, slots);
    if (slots.active < this.perHost) {
      slots.active += 1;
      return Promise.resolve(this.releaser(host, slots));
    }
    if (slots.waiting.length >= this.maxWaitingPerHost) return Promise.resolve(undefined);
    return new Promise((resolve) => slots.waiting.push(resolve));
  }

  inFlight(host: string): number {
    return this.hosts.get(host)?.active ?? 0;
  }

  private releaser(host: string, slots: HostSlots): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slots.waiting.shift();
      // The slot passes straight to the next waiter, so a newcomer cannot jump the queue.
      if (next) {
        next(this.releaser(host, slots));
        return;
      }
      slots.active -= 1;
      if (slots.active === 0) this.hosts.delete(host);
    };
  }
}
