import {
  admitCall,
  afterCall,
  CIRCUIT_MOVES,
  CIRCUIT_STATES,
  CLOSED_CIRCUIT,
  canMove,
  DEFAULT_CIRCUIT_SETTINGS,
  parseCircuitSetting,
  parseCircuitSettings,
  providersToList,
  shouldTrip,
  type CircuitStatus,
} from '../src';

const settings = { windowSeconds: 60, minCalls: 10, failurePercent: 50, coolOffSeconds: 120 };
const COOL_OFF_MS = 120_000;
const T0 = 1_700_000_000_000;

describe('provider circuit settings', () => {
  it('has documented defaults', () => {
    expect(DEFAULT_CIRCUIT_SETTINGS).toEqual({ windowSeconds: 300, minCalls: 10, failurePercent: 50, coolOffSeconds: 120 });
    expect(parseCircuitSettings({})).toEqual(DEFAULT_CIRCUIT_SETTINGS);
    expect(parseCircuitSettings({ PROVIDER_CIRCUIT_MIN_CALLS: '20', PROVIDER_CIRCUIT_FAILURE_PERCENT: '100' })).toMatchObject({
      minCalls: 20,
      failurePercent: 100,
    });
  });

  it.each([
    ['failurePercent', '0'],
    ['failurePercent', '101'],
    ['minCalls', '0'],
    ['windowSeconds', '9'],
    ['coolOffSeconds', '4'],
    ['coolOffSeconds', '86401'],
    ['windowSeconds', '1.5'],
    ['minCalls', ''],
  ] as const)('refuses %s = %p naming its variable', (key, input) => {
    expect(() => parseCircuitSetting(key, input)).toThrow(
      expect.objectContaining({ code: 'invalid_parameter', param: expect.stringMatching(/^PROVIDER_CIRCUIT_/) }),
    );
  });

  it('takes the ends of each range', () => {
    expect(parseCircuitSetting('failurePercent', '1')).toBe(1);
    expect(parseCircuitSetting('failurePercent', '100')).toBe(100);
    expect(parseCircuitSetting('coolOffSeconds', '86400')).toBe(86_400);
  });
});

describe('the circuit moves', () => {
  it('are data over the three states, and nothing else moves', () => {
    expect(CIRCUIT_STATES).toEqual(['closed', 'open', 'half_open']);
    expect(canMove(CIRCUIT_MOVES, 'closed', 'open')).toBe(true);
    expect(canMove(CIRCUIT_MOVES, 'open', 'half_open')).toBe(true);
    expect(canMove(CIRCUIT_MOVES, 'half_open', 'closed')).toBe(true);
    expect(canMove(CIRCUIT_MOVES, 'half_open', 'open')).toBe(true);
    expect(canMove(CIRCUIT_MOVES, 'open', 'closed')).toBe(false);
    expect(canMove(CIRCUIT_MOVES, 'closed', 'half_open')).toBe(false);
  });
});

describe('shouldTrip', () => {
  it('trips at the threshold share, not below it, and never under the minimum number of calls', () => {
    expect(shouldTrip({ calls: 10, failures: 5 }, settings)).toBe(true);
    expect(shouldTrip({ calls: 10, failures: 4 }, settings)).toBe(false);
    expect(shouldTrip({ calls: 9, failures: 9 }, settings)).toBe(false);
    expect(shouldTrip({ calls: 101, failures: 51 }, settings)).toBe(true);
    expect(shouldTrip({ calls: 101, failures: 50 }, settings)).toBe(false);
  });
});

describe('a circuit through its life', () => {
  it('opens on the calls, refuses during the cool-off, lets one trial through, and closes on its success', () => {
    let status: CircuitStatus = CLOSED_CIRCUIT;
    expect(admitCall(status, T0, settings).admit).toBe(true);
    status = afterCall(status, 'timeout', { calls: 10, failures: 4 }, T0, settings);
    expect(status.state).toBe('closed');
    status = afterCall(status, 'error', { calls: 10, failures: 5 }, T0, settings);
    expect(status).toEqual({ state: 'open', openedAt: T0 });

    expect(admitCall(status, T0 + COOL_OFF_MS - 1, settings)).toEqual({ admit: false, status });
    const trial = admitCall(status, T0 + COOL_OFF_MS, settings);
    expect(trial).toEqual({ admit: true, status: { state: 'half_open', openedAt: T0, trialStartedAt: T0 + COOL_OFF_MS } });
    // One trial only: a second call while it is under way is refused.
    expect(admitCall(trial.status, T0 + COOL_OFF_MS + 1, settings).admit).toBe(false);

    expect(afterCall(trial.status, 'success', { calls: 1, failures: 0 }, T0 + COOL_OFF_MS + 5, settings)).toEqual({ state: 'closed' });
  });

  it('opens again when the trial fails, for a new cool-off', () => {
    const halfOpen: CircuitStatus = { state: 'half_open', openedAt: T0, trialStartedAt: T0 + COOL_OFF_MS };
    const reopened = afterCall(halfOpen, 'timeout', { calls: 1, failures: 1 }, T0 + COOL_OFF_MS + 10, settings);
    expect(reopened).toEqual({ state: 'open', openedAt: T0 + COOL_OFF_MS + 10 });
    expect(admitCall(reopened, T0 + 2 * COOL_OFF_MS, settings).admit).toBe(false);
  });

  it('lets a new trial through when the last one began a cool-off ago and never ended', () => {
    const stuck: CircuitStatus = { state: 'half_open', openedAt: T0, trialStartedAt: T0 + COOL_OFF_MS };
    expect(admitCall(stuck, T0 + 2 * COOL_OFF_MS - 1, settings).admit).toBe(false);
    expect(admitCall(stuck, T0 + 2 * COOL_OFF_MS, settings)).toEqual({
      admit: true,
      status: { state: 'half_open', openedAt: T0, trialStartedAt: T0 + 2 * COOL_OFF_MS },
    });
  });

  it('ignores a call that ends while the circuit is open', () => {
    const open: CircuitStatus = { state: 'open', openedAt: T0 };
    expect(afterCall(open, 'success', { calls: 50, failures: 0 }, T0 + 1, settings)).toBe(open);
  });
});

describe('providersToList', () => {
  const providers = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
  const now = T0 + 60_000;

  it('leaves out the open ones and keeps the rest in order', () => {
    const statuses: Record<string, CircuitStatus> = { a: CLOSED_CIRCUIT, b: { state: 'open', openedAt: T0 }, c: CLOSED_CIRCUIT };
    expect(providersToList(providers, (id) => statuses[id] as CircuitStatus, now, settings)).toEqual({
      listed: [{ id: 'a' }, { id: 'c' }],
      keptDespiteOpen: false,
    });
  });

  it('lists one whose cool-off is over (its trial is the next customer)', () => {
    const statuses: Record<string, CircuitStatus> = {
      a: { state: 'open', openedAt: now - COOL_OFF_MS },
      b: { state: 'open', openedAt: now },
      c: { state: 'open', openedAt: now },
    };
    expect(providersToList(providers, (id) => statuses[id] as CircuitStatus, now, settings).listed).toEqual([{ id: 'a' }]);
  });

  it('never ends with none: when every one is open, the least recently opened stay listed', () => {
    const statuses: Record<string, CircuitStatus> = {
      a: { state: 'open', openedAt: T0 + 10 },
      b: { state: 'open', openedAt: T0 },
      c: { state: 'half_open', openedAt: T0, trialStartedAt: now - 1 },
    };
    expect(providersToList(providers, (id) => statuses[id] as CircuitStatus, now, settings)).toEqual({
      listed: [{ id: 'b' }, { id: 'c' }],
      keptDespiteOpen: true,
    });
    expect(providersToList([], () => CLOSED_CIRCUIT, now, settings)).toEqual({ listed: [], keptDespiteOpen: false });
  });
});
