import { invalidParameter } from './errors';
import { canMove, type StatusMove } from './state-moves';

/**
 * A circuit breaker per provider, for the checkout calls the gateway makes to it (issue 32): a
 * provider whose recent calls fail (errors, timeouts) at or above a share of them, over at least a
 * minimum number of calls in a window, is opened: taken off the page for a cool-off. Then it is
 * half-open: one call (a customer choosing it) goes through as a trial; its success closes the
 * circuit, its failure opens it again. The store of statuses and counts is the caller's; the rules
 * are here, the moves as data and every change checked against them.
 */

export const CIRCUIT_STATES = ['closed', 'open', 'half_open'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];

export const CIRCUIT_MOVES = {
  trip: {
    from: ['closed'],
    to: 'open',
    requires: 'at least the minimum number of calls in the window, of which failures (errors, timeouts) reach the threshold',
  },
  allowTrial: {
    from: ['open', 'half_open'],
    to: 'half_open',
    requires: 'the cool-off over since it opened (or since the last trial began)',
  },
  close: { from: ['half_open'], to: 'closed', requires: 'the trial call succeeded' },
  reopen: { from: ['half_open'], to: 'open', requires: 'the trial call failed' },
} as const satisfies Record<string, StatusMove<CircuitState>>;

export interface CircuitStatus {
  readonly state: CircuitState;
  /** When it last opened (ms since the epoch); absent while it has never opened. */
  readonly openedAt?: number;
  /** When the half-open trial call began. */
  readonly trialStartedAt?: number;
}

export const CLOSED_CIRCUIT: CircuitStatus = { state: 'closed' };

/** The calls of one provider in the current window, as the caller counted them. */
export interface CircuitWindowCounts {
  readonly calls: number;
  /** Calls that ended in an error or a timeout. */
  readonly failures: number;
}

export type CircuitCallOutcome = 'success' | 'error' | 'timeout';

export interface CircuitSettings {
  readonly windowSeconds: number;
  readonly minCalls: number;
  readonly failurePercent: number;
  readonly coolOffSeconds: number;
}

/** Each setting: its variable, default, and the range an operator may set. */
export const CIRCUIT_SETTINGS = {
  windowSeconds: { name: 'PROVIDER_CIRCUIT_WINDOW_SECONDS', default: 300, least: 10, most: 86_400, unit: 'seconds' },
  minCalls: { name: 'PROVIDER_CIRCUIT_MIN_CALLS', default: 10, least: 1, most: 100_000, unit: 'calls' },
  failurePercent: { name: 'PROVIDER_CIRCUIT_FAILURE_PERCENT', default: 50, least: 1, most: 100, unit: 'percent' },
  coolOffSeconds: { name: 'PROVIDER_CIRCUIT_COOL_OFF_SECONDS', default: 120, least: 5, most: 86_400, unit: 'seconds' },
} as const satisfies Record<keyof CircuitSettings, { name: string; default: number; least: number; most: number; unit: string }>;

export const DEFAULT_CIRCUIT_SETTINGS: CircuitSettings = {
  windowSeconds: CIRCUIT_SETTINGS.windowSeconds.default,
  minCalls: CIRCUIT_SETTINGS.minCalls.default,
  failurePercent: CIRCUIT_SETTINGS.failurePercent.default,
  coolOffSeconds: CIRCUIT_SETTINGS.coolOffSeconds.default,
};

/** Reads one circuit setting: a whole number within its range, refused naming the variable otherwise. */
export function parseCircuitSetting(key: keyof CircuitSettings, input: string): number {
  const setting = CIRCUIT_SETTINGS[key];
  const value = /^\d{1,6}$/.test(input) ? Number(input) : Number.NaN;
  if (!(value >= setting.least && value <= setting.most)) {
    throw invalidParameter(
      setting.name,
      `${setting.name} must be a whole number of ${setting.unit} from ${setting.least} to ${setting.most} ` +
        `(default ${setting.default}); got "${input.slice(0, 20)}"`,
    );
  }
  return value;
}

/** The circuit settings from the environment's values (absent: the default). */
export function parseCircuitSettings(values: Partial<Record<string, string>>): CircuitSettings {
  const read = (key: keyof CircuitSettings) => {
    const input = values[CIRCUIT_SETTINGS[key].name];
    return input === undefined ? CIRCUIT_SETTINGS[key].default : parseCircuitSetting(key, input);
  };
  return {
    windowSeconds: read('windowSeconds'),
    minCalls: read('minCalls'),
    failurePercent: read('failurePercent'),
    coolOffSeconds: read('coolOffSeconds'),
  };
}

/** The window's calls reach the minimum and their failures reach the threshold share (compared exactly). */
export function shouldTrip(counts: CircuitWindowCounts, settings: CircuitSettings): boolean {
  return counts.calls >= settings.minCalls && counts.failures * 100 >= settings.failurePercent * counts.calls;
}

/**
 * Whether a checkout call to the provider may be made now, and the status that holds after the
 * decision: closed lets every call through; open refuses until the cool-off is over, then lets one
 * trial through (half-open); half-open refuses while its trial is under way, and lets a new trial
 * through when the last one began a cool-off ago without ending (a process that died mid-trial).
 */
export function admitCall(status: CircuitStatus, now: number, settings: CircuitSettings): { admit: boolean; status: CircuitStatus } {
  if (status.state === 'closed') return { admit: true, status };
  const since = status.state === 'open' ? status.openedAt : status.trialStartedAt;
  if (since !== undefined && now - since < settings.coolOffSeconds * 1000) return { admit: false, status };
  return { admit: true, status: moved(status, 'half_open', { openedAt: status.openedAt, trialStartedAt: now }) };
}

/**
 * The status after a checkout call ended, given the window's counts with this call included. A
 * closed circuit trips on the counts; a half-open one closes on its trial's success and opens again
 * on its failure; an open one ignores a call that was under way when it opened.
 */
export function afterCall(
  status: CircuitStatus,
  outcome: CircuitCallOutcome,
  counts: CircuitWindowCounts,
  now: number,
  settings: CircuitSettings,
): CircuitStatus {
  switch (status.state) {
    case 'closed':
      return shouldTrip(counts, settings) ? moved(status, 'open', { openedAt: now }) : status;
    case 'half_open':
      return outcome === 'success' ? moved(status, 'closed', {}) : moved(status, 'open', { openedAt: now });
    case 'open':
      return status;
    default:
      return unhandled(status.state);
  }
}

/** Listed on the page: closed, or ready to let a trial through (a customer choosing it is the trial). */
export function circuitListed(status: CircuitStatus, now: number, settings: CircuitSettings): boolean {
  return admitCall(status, now, settings).admit;
}

/**
 * The providers the page lists, in their order: those whose circuit lets a call through. The page
 * never ends with none: when every circuit refuses, the ones opened least recently stay listed
 * (`keptDespiteOpen`), all of those opened at that same moment.
 */
export function providersToList<T extends { readonly id: string }>(
  providers: readonly T[],
  statusOf: (id: string) => CircuitStatus,
  now: number,
  settings: CircuitSettings,
): { listed: T[]; keptDespiteOpen: boolean } {
  const listed = providers.filter((provider) => circuitListed(statusOf(provider.id), now, settings));
  if (listed.length > 0 || providers.length === 0) return { listed, keptDespiteOpen: false };
  const openedAt = (provider: T) => statusOf(provider.id).openedAt ?? Number.NEGATIVE_INFINITY;
  const earliest = Math.min(...providers.map(openedAt));
  return { listed: providers.filter((provider) => openedAt(provider) === earliest), keptDespiteOpen: true };
}

function moved(status: CircuitStatus, to: CircuitState, fields: Omit<CircuitStatus, 'state'>): CircuitStatus {
  if (!canMove(CIRCUIT_MOVES, status.state, to)) throw new Error(`a provider circuit cannot move from ${status.state} to ${to}`);
  const next: { state: CircuitState; openedAt?: number; trialStartedAt?: number } = { state: to };
  if (fields.openedAt !== undefined) next.openedAt = fields.openedAt;
  if (fields.trialStartedAt !== undefined) next.trialStartedAt = fields.trialStartedAt;
  return next;
}

function unhandled(state: never): never {
  throw new Error(`provider circuit state ${String(state)} has no rule`);
}
