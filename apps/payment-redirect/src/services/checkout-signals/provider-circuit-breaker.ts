import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type IORedis from 'ioredis';
import {
  admitCall,
  afterCall,
  CIRCUIT_STATES,
  CLOSED_CIRCUIT,
  providersToList,
  type CircuitCallOutcome,
  type CircuitSettings,
  type CircuitState,
  type CircuitStatus,
} from '@gateway/domain';
import { REDIS_AREAS } from '@gateway/queue';

/**
 * The providers' circuit breakers (issue 32) kept in Redis, shared by every replica: each session
 * checkout call's outcome goes into the provider's window, and the moves are domain's
 * (provider-circuit.ts: admitCall, afterCall, providersToList), each written with a compare-and-set
 * on a version so two replicas never both open a circuit or both start its half-open trial. Redis
 * failing opens the breaker wide (every provider listed, every call let through), logged: a
 * breaker must never be what fails the page.
 */

export interface CircuitMetrics {
  /** Starts the provider's openings at 0, so the first opening is an increase Prometheus sees. */
  track(provider: string): void;
  /** The state this replica last read or wrote for the provider. */
  state(provider: string, state: CircuitState): void;
  /** This replica opened the provider's circuit (a trip, or a failed trial). */
  opened(provider: string): void;
  /** Redis did not answer: the breaker let everything through. */
  storeError(): void;
}

/** A call let through: whether it is the half-open trial (and which one), for record() to tell its outcome from another call's. */
export interface CircuitTicket {
  readonly provider: string;
  readonly trialStartedAt?: number;
}

export type Admission = { readonly admit: true; readonly ticket: CircuitTicket } | { readonly admit: false };

/** Which of the providers the page lists now, and each one's circuit. */
export interface ListedProviders<T> {
  readonly listed: T[];
  /** Every circuit refused, so the least recently opened stay listed (providersToList). */
  readonly keptDespiteOpen: boolean;
  readonly states: ReadonlyMap<string, CircuitState>;
}

export interface ProviderCircuitBreakerDeps {
  redis: IORedis;
  /** REDIS_PREFIX. */
  prefix: string;
  settings: CircuitSettings;
  metrics: CircuitMetrics;
  log: FastifyBaseLogger;
  /** Milliseconds since the epoch; the same clock stamps the calls and the states. */
  now?: () => number;
}

/** What the status key holds: the domain's status and the version the compare-and-set checks. */
interface StoredStatus {
  readonly status: CircuitStatus;
  readonly version: number;
  /** The key's text as read ('' when absent): what the compare-and-set compares. */
  readonly raw: string;
}

// The status key still holds what was read (its text, '' for none): then it takes the new one, and
// a closing circuit's window starts over (its calls and failures are deleted); else nothing changes.
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[4] == '1' then redis.call('DEL', KEYS[2], KEYS[3]) end
return 1`;

/** Another replica changed the status between the read and the write: read again, a few times at most. */
const WRITE_ATTEMPTS = 3;

export class ProviderCircuitBreaker {
  private readonly now: () => number;

  constructor(private readonly deps: ProviderCircuitBreakerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Whether a checkout call to `provider` may be made now (admitCall). Letting a half-open
   * provider's trial through is written first, so one replica alone makes it.
   */
  async admit(provider: string): Promise<Admission> {
    try {
      for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt += 1) {
        const stored = await this.read(provider);
        const now = this.now();
        const decision = admitCall(stored.status, now, this.deps.settings);
        if (!decision.admit) return { admit: false };
        if (decision.status === stored.status) return { admit: true, ticket: { provider } };
        if (await this.write(provider, stored, decision.status)) {
          this.deps.log.info({ provider }, 'provider circuit half-open: this checkout is its trial');
          return { admit: true, ticket: { provider, ...ticketOf(decision.status) } };
        }
      }
      // Replicas kept changing it: another has just let its trial through.
      return { admit: false };
    } catch (error) {
      this.storeFailed(error, provider);
      return { admit: true, ticket: { provider } };
    }
  }

  /** Counts the call's outcome in the provider's window and makes the move it calls for (afterCall). */
  async record(ticket: CircuitTicket, outcome: CircuitCallOutcome): Promise<void> {
    const { provider } = ticket;
    try {
      const counts = await this.count(provider, outcome);
      for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt += 1) {
        const stored = await this.read(provider);
        // A call let through before the circuit opened, ending during another's trial, does not decide it.
        if (stored.status.state === 'half_open' && stored.status.trialStartedAt !== ticket.trialStartedAt) return;
        const next = afterCall(stored.status, outcome, counts, this.now(), this.deps.settings);
        if (next.state === stored.status.state) return;
        if (await this.write(provider, stored, next)) {
          this.moved(provider, stored.status.state, next, counts);
          return;
        }
      }
    } catch (error) {
      this.storeFailed(error, provider);
    }
  }

  /** The providers (in their order) the page lists now: providersToList over their stored circuits. */
  async listed<T extends { readonly id: string }>(providers: readonly T[]): Promise<ListedProviders<T>> {
    let statuses: Map<string, CircuitStatus>;
    try {
      statuses = await this.readMany(providers.map((provider) => provider.id));
    } catch (error) {
      this.storeFailed(error);
      return { listed: [...providers], keptDespiteOpen: false, states: new Map() };
    }
    const statusOf = (id: string) => statuses.get(id) ?? CLOSED_CIRCUIT;
    const { listed, keptDespiteOpen } = providersToList(providers, statusOf, this.now(), this.deps.settings);
    const states = new Map(providers.map((provider) => [provider.id, statusOf(provider.id).state] as const));
    for (const [provider, state] of states) this.deps.metrics.state(provider, state);
    if (keptDespiteOpen) this.deps.log.warn({ providers: listed.map((provider) => provider.id) }, 'every provider circuit is open');
    return { listed, keptDespiteOpen, states };
  }

  private key(provider: string, part: 'status' | 'calls' | 'failures'): string {
    return `${this.deps.prefix}:${REDIS_AREAS.providerCircuits}${provider}:${part}`;
  }

  /** Adds the call to the window (its calls, and its failures when it failed), drops what is older, and counts it. */
  private async count(provider: string, outcome: CircuitCallOutcome): Promise<{ calls: number; failures: number }> {
    const now = this.now();
    const windowMs = this.deps.settings.windowSeconds * 1000;
    const member = `${now}:${randomBytes(6).toString('hex')}`;
    const calls = this.key(provider, 'calls');
    const failures = this.key(provider, 'failures');
    const pipeline = this.deps.redis.pipeline().zadd(calls, now, member);
    if (outcome !== 'success') pipeline.zadd(failures, now, member);
    for (const key of [calls, failures]) pipeline.zremrangebyscore(key, '-inf', `(${now - windowMs}`).pexpire(key, windowMs);
    pipeline.zcard(calls).zcard(failures);
    const results = (await pipeline.exec()) ?? [];
    for (const [error] of results) if (error) throw error;
    const cards = results.slice(-2).map(([, value]) => Number(value));
    return { calls: cards[0] ?? 0, failures: cards[1] ?? 0 };
  }

  private async read(provider: string): Promise<StoredStatus> {
    return storedOf(await this.deps.redis.get(this.key(provider, 'status')));
  }

  private async readMany(providers: readonly string[]): Promise<Map<string, CircuitStatus>> {
    if (providers.length === 0) return new Map();
    const values = await this.deps.redis.mget(...providers.map((provider) => this.key(provider, 'status')));
    return new Map(providers.map((provider, index) => [provider, storedOf(values[index] ?? null).status]));
  }

  /** Writes `next` if the status is still `stored`; a closing circuit's window starts over. */
  private async write(provider: string, stored: StoredStatus, next: CircuitStatus): Promise<boolean> {
    const { windowSeconds, coolOffSeconds } = this.deps.settings;
    // Kept past any cool-off and window; a status long untouched may lapse to closed (no key), which the rules allow.
    const ttlMs = (Math.max(windowSeconds, coolOffSeconds) * 2 + 3600) * 1000;
    const text = JSON.stringify({ ...next, version: stored.version + 1 });
    const written = await this.deps.redis.eval(
      COMPARE_AND_SET,
      3,
      this.key(provider, 'status'),
      this.key(provider, 'calls'),
      this.key(provider, 'failures'),
      stored.raw,
      text,
      String(ttlMs),
      next.state === 'closed' ? '1' : '0',
    );
    if (written === 1) this.deps.metrics.state(provider, next.state);
    return written === 1;
  }

  private moved(provider: string, from: CircuitState, next: CircuitStatus, counts: { calls: number; failures: number }): void {
    if (next.state === 'open') {
      this.deps.metrics.opened(provider);
      this.deps.log.warn(
        { provider, from, ...counts, coolOffSeconds: this.deps.settings.coolOffSeconds },
        from === 'half_open'
          ? 'provider circuit opened again: its trial checkout failed'
          : 'provider circuit opened: its checkouts are failing',
      );
    } else {
      this.deps.log.info({ provider, from }, 'provider circuit closed: its trial checkout succeeded');
    }
  }

  private storeFailed(error: unknown, provider?: string): void {
    this.deps.metrics.storeError();
    this.deps.log.warn({ err: error, provider }, 'provider circuit store (Redis) failed: every provider is let through');
  }
}

function ticketOf(status: CircuitStatus): Pick<CircuitTicket, 'trialStartedAt'> {
  return status.trialStartedAt !== undefined ? { trialStartedAt: status.trialStartedAt } : {};
}

/** The stored text as a status; absent, or not one this code wrote, is a closed circuit (version 0). */
function storedOf(raw: string | null): StoredStatus {
  if (raw === null) return { status: CLOSED_CIRCUIT, version: 0, raw: '' };
  try {
    const parsed = JSON.parse(raw) as { state?: unknown; openedAt?: unknown; trialStartedAt?: unknown; version?: unknown };
    const state = CIRCUIT_STATES.find((candidate) => candidate === parsed.state);
    const version = typeof parsed.version === 'number' ? parsed.version : 0;
    if (state === undefined) return { status: CLOSED_CIRCUIT, version, raw };
    const status: { state: CircuitState; openedAt?: number; trialStartedAt?: number } = { state };
    if (typeof parsed.openedAt === 'number') status.openedAt = parsed.openedAt;
    if (typeof parsed.trialStartedAt === 'number') status.trialStartedAt = parsed.trialStartedAt;
    return { status, version, raw };
  } catch {
    return { status: CLOSED_CIRCUIT, version: 0, raw };
  }
}
