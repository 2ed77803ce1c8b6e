import ipaddr from 'ipaddr.js';
import { getDomain } from 'tldts';

export type Release = () => void;

/**
 * What the per-host limit counts a callback URL as: one merchant. A name counts as its registrable
 * domain (public suffix + one label, from the Public Suffix List's ICANN section), so a.evil.com,
 * b.evil.com and every other name a wildcard DNS record answers for share one limit. An IP literal
 * counts as its address however it is spelled (2130706433, ::ffff:127.0.0.1 and 127.0.0.1 alike).
 * Only ICANN suffixes count: under the private ones (*.herokuapp.com, *.duckdns.org, …) anyone can
 * get names for free, which is exactly what a merchant out to take every slot would use; honest
 * shops there share a limit, which costs them a short wait only while one of them is slow.
 */
export function merchantKeyOf(url: string): string {
  if (!URL.canParse(url)) return '';
  // The URL parser already lower-cases names and writes IPv4 in dotted decimal.
  const hostname = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.isValid(hostname)) return ipaddr.process(hostname).toString();
  const name = hostname.replace(/\.$/, '');
  // Names without a known public suffix (localhost, a single-label intranet name) stay whole.
  return getDomain(name, { allowPrivateDomains: false }) ?? name;
}

interface HostSlots {
  active: number;
  waiting: Array<(release: Release | undefined) => void>;
}

/**
 * Bounds the callbacks in flight per merchant host, so a slow merchant holds at most `perHost`
 * requests. A few more may queue behind them (`maxWaitingPerHost`); beyond that `acquire` says no
 * at once, and the caller hands the job back to the queue for a little later instead of occupying a
 * worker slot that callbacks to other merchants need.
 */
export class HostLimiter {
  private readonly hosts = new Map<string, HostSlots>();
  private closed = false;

  constructor(
    private readonly perHost: number,
    private readonly maxWaitingPerHost: number,
  ) {}

  /** A release function once a slot is free, or undefined when the host is saturated (or the limiter closed). */
  acquire(host: string): Promise<Release | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const slots = this.hosts.get(host) ?? { active: 0, waiting: [] };
    this.hosts.set(host, slots);
    if (slots.active < this.perHost) {
      slots.active += 1;
      return Promise.resolve(this.releaser(host, slots));
    }
    if (slots.waiting.length >= this.maxWaitingPerHost) return Promise.resolve(undefined);
    return new Promise((resolve) => slots.waiting.push(resolve));
  }

  /**
   * A worker shutting down starts no new attempt: waiters and later callers get undefined (their
   * jobs go back to the queue); the slots in use are released as usual.
   */
  close(): void {
    this.closed = true;
    for (const slots of this.hosts.values()) {
      for (const waiter of slots.waiting.splice(0)) waiter(undefined);
    }
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
