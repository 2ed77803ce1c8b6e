import type { Static, TObject } from '@sinclair/typebox';
import {
  ProviderCheckoutError,
  type AdapterContext,
  type CheckoutOrder,
  type CreatedCheckout,
  type ProviderAdapter,
  type ProviderMode,
  type ProviderModule,
  type ProviderStatusQuery,
} from '../../src/provider-contract';
import { createProviderHttpClient, type ProviderHttpClient } from '../../src/support/provider-http-client';
import { contractContext, describeAdapterContract, sampleOrder, type AdapterContractFixture } from './adapter-contract';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';

/**
 * The suite every session adapter runs (`describeSessionAdapter` in its own test file): the
 * adapter contract, against the provider's documented fake, and what every session call must do
 * whatever the provider: turn each error, malformed answer or silence into a ProviderCheckoutError
 * of the right kind with no secret in its message; send a call the provider does not de-duplicate
 * once (or retry it with the same Idempotency-Key where the provider honours one); refuse an amount
 * that is not a decimal before any call; default to the documented API host of each mode; and
 * make a failed status look-up throw, so the poller asks again later. It returns the kit the
 * provider's own tests use beside it (the fake, the adapter builder, a checkout opener).
 */

type ContractChecks<S extends TObject> =
  AdapterContractFixture<S> extends infer F ? (F extends unknown ? Omit<F, 'module' | 'settings' | 'context'> : never) : never;

/**
 * A session call answered otherwise than documented: the answer, or a function of the fake that gives it (or sets the
 * fake up by hand and gives nothing, for a later call failing).
 */
export type SessionFailure<F> = readonly [
  name: string,
  kind: 'refused' | 'unavailable',
  answer: FakeAnswer | ((fake: F) => FakeAnswer | undefined),
];

export interface SessionAdapterFixture<S extends TObject, F extends DocumentedFake<FakeRequest>> {
  module: ProviderModule<S>;
  /** Starts the provider's fake; the suite resets it before each test, expects it found no problem after, and closes it. */
  startFake(): Promise<F>;
  /** The settings of a mode, on the fake (built when an adapter is, once the fake listens). */
  settings(fake: F, mode: ProviderMode): Static<S>;
  /** The modes the contract covers; the first is the one an adapter is built in unless a test says. */
  modes: readonly [ProviderMode, ...ProviderMode[]];
  /** Context beside the HTTP client (an event store, a token store). */
  context?(): Partial<AdapterContext>;
  /** The contract's provider-specific part (how to read a checkout, how the provider signs its webhooks), given the running fake. */
  contract(fake: () => F): ContractChecks<S>;
  /** The order's currency in the shared checks; USD unless the descriptor says otherwise. */
  currency?: CheckoutOrder['currency'];
  /** The credential no error message may carry. */
  secret(fake: F): string;
  /** 'once': the provider documents no idempotency, a second call would open a second session. */
  sends: 'once' | 'with-idempotency-key';
  /** Answers the session call itself otherwise, where a checkout makes others first (Transak mints a token); by default `script` answers every call. */
  answerSession?(fake: F, answer: FakeAnswer): void;
  /**
   * The statuses of the refusals (in the provider's documented error body) the session call is tried with: 400, 401
   * and 403 unless said (Transak renews its token on a 401 and asks once more: its own tests say so).
   */
  refusedWith?: readonly number[];
  /** Answers that succeed but give nothing usable (no id, a link off the provider, a URL smuggled in), by what is wrong: each refused. */
  malformed: Readonly<Record<string, string>>;
  /** The status of the provider's successful answers, 200 unless it documents another (Guardarian's 201 Created). */
  successStatus?: number;
  /** Failures of the provider's own, beside the refusals, the malformed answers and the shared 5xx, 429, non-JSON and silent ones. */
  failures?: readonly SessionFailure<F>[];
  /**
   * How the adapter refuses an amount that is not a decimal before any call: by default a ProviderCheckoutError that
   * names it. A pattern of the message where it throws another error (Simplex); false where it passes the amount on
   * (TransFi, Coinbase, Stripe). Both are gaps in those adapters, not rules of their providers.
   */
  malformedAmount?: RegExp | false;
  /** Whether the fake's refusals are problems (Binance's fake counts every refusal): no expectation of none after each test. */
  refusalsAreProblems?: boolean;
  /** The URL of the first call of a checkout in each mode, without an API URL setting. */
  defaultHosts: Partial<Record<ProviderMode, string>>;
  /**
   * The status look-up: what its errors say, the provider's own failed answers beside a 502, a 401 and non-JSON, and
   * the query (the sample order's payment id unless said).
   */
  status?: { error: RegExp; failures?: readonly (readonly [name: string, answer: FakeAnswer])[]; query?: ProviderStatusQuery };
}

export interface SessionAdapterKit<S extends TObject, F> {
  /** The running fake (from the first test on). */
  readonly fake: F;
  readonly http: ProviderHttpClient;
  settings(mode?: ProviderMode): Static<S>;
  build(mode?: ProviderMode, settings?: Static<S>, context?: Partial<AdapterContext>): Promise<ProviderAdapter>;
  /** A checkout of `order`, by a new adapter unless one is given, keyed by its payment id unless a key is given. */
  open(
    order?: CheckoutOrder,
    options?: { mode?: ProviderMode; idempotencyKey?: string; adapter?: ProviderAdapter },
  ): Promise<CreatedCheckout>;
}

const SHARED_FAILURES = [
  ['5xx (500)', 'unavailable', { status: 500, body: '{}' }],
  ['5xx (503)', 'unavailable', { status: 503, body: '{}' }],
  ['too many (429)', 'unavailable', { status: 429, body: '{}' }],
  ['not JSON', 'refused', { status: 200, body: 'OK' }],
  ['no answer', 'unavailable', 'hang'],
] as const;

const SHARED_STATUS_FAILURES = [
  ['5xx', () => ({ status: 502, body: '' })],
  ['bad credentials (401)', (fake: DocumentedFake) => fake.refusal(401, 'Unauthorized')],
  ['not JSON', () => ({ status: 200, body: 'nope' })],
] as const;

export function describeSessionAdapter<S extends TObject, F extends DocumentedFake<FakeRequest>>(
  fixture: SessionAdapterFixture<S, F>,
): SessionAdapterKit<S, F> {
  const { descriptor } = fixture.module;
  // Deadlines long enough for a machine under load, short enough that a silent provider fails a test in seconds.
  const http = createProviderHttpClient({ attemptTimeoutMs: 1000, maxAttempts: 3, backoffBaseMs: 1 });
  const currency = fixture.currency ?? (descriptor.currency === 'any' ? 'USD' : descriptor.currency);
  let running: F | undefined;
  const kit: SessionAdapterKit<S, F> = {
    get fake() {
      if (!running) throw new Error(`the ${descriptor.id} fake is not running yet`);
      return running;
    },
    http,
    settings: (mode = fixture.modes[0]) => fixture.settings(kit.fake, mode),
    build: (mode = fixture.modes[0], settings = kit.settings(mode), context = {}) =>
      Promise.resolve(fixture.module.create(settings, contractContext(descriptor.id, mode, { http, ...fixture.context?.(), ...context }))),
    async open(order = sampleOrder(currency), { mode, idempotencyKey = order.paymentId, adapter } = {}) {
      return (adapter ?? (await kit.build(mode))).createCheckout(order, { idempotencyKey, signal: AbortSignal.timeout(3000) });
    },
  };

  beforeAll(async () => {
    running = await fixture.startFake();
  });
  beforeEach(() => kit.fake.reset());
  if (!fixture.refusalsAreProblems) afterEach(() => expect(kit.fake.problems).toEqual([]));
  afterAll(async () => {
    await http.close();
    await running?.close();
  });

  // Each mode's settings are read when the contract builds an adapter, once the fake listens.
  const contractSettings = Object.defineProperties(
    {},
    Object.fromEntries(fixture.modes.map((mode) => [mode, { enumerable: true, get: () => kit.settings(mode) }])),
  ) as Partial<Record<ProviderMode, Static<S>>>;
  describeAdapterContract({
    ...fixture.contract(() => kit.fake),
    module: fixture.module,
    settings: contractSettings,
    context: () => ({ http, ...fixture.context?.() }),
  } as AdapterContractFixture<S>);

  describe(`${descriptor.id}: the session call, as every session adapter makes it`, () => {
    const { refusedWith = [400, 401, 403], successStatus = 200 } = fixture;
    const failures: SessionFailure<F>[] = [
      ...SHARED_FAILURES,
      ...refusedWith.map((status): SessionFailure<F> => [`refused with ${status}`, 'refused', (fake) => fake.refusal(status, 'refused')]),
      ...Object.entries(fixture.malformed).map(([name, body]): SessionFailure<F> => [name, 'refused', { status: successStatus, body }]),
      ...(fixture.failures ?? []),
    ];
    const answerSession =
      fixture.answerSession ??
      ((fake: F, answer: FakeAnswer) => {
        fake.script = () => answer;
      });
    it.each(failures)('%s: a ProviderCheckoutError of kind %s, no secret in it', async (_name, kind, failure) => {
      const answer = typeof failure === 'function' ? failure(kit.fake) : failure;
      // A failure that gives no answer set the fake up itself.
      if (answer !== undefined) answerSession(kit.fake, answer);
      const error = await kit.open().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderCheckoutError);
      expect((error as ProviderCheckoutError).kind).toBe(kind);
      expect((error as Error).message).not.toContain(fixture.secret(kit.fake));
      if (fixture.sends === 'once') {
        // Each call sent once: the provider does not de-duplicate them, a second would open a second session.
        const calls = kit.fake.requests.map((request) => `${request.method} ${request.path}`);
        expect(calls.length).toBeGreaterThan(0);
        expect(new Set(calls).size).toBe(calls.length);
      }
    });

    const { malformedAmount } = fixture;
    if (malformedAmount !== false) {
      it('an amount that is not a two-decimal string is refused before any call', async () => {
        const refusal = kit.open({ ...sampleOrder(currency), amount: '1e3' });
        if (malformedAmount) await expect(refusal).rejects.toThrow(malformedAmount);
        else {
          await expect(refusal).rejects.toBeInstanceOf(ProviderCheckoutError);
          await expect(refusal).rejects.toThrow(/1e3/);
        }
        expect(kit.fake.requests).toHaveLength(0);
      });
    }

    it(`the default API hosts: ${Object.values(fixture.defaultHosts).join(', ')}`, async () => {
      const urls: string[] = [];
      const recording: ProviderHttpClient = {
        request: async (request) => {
          urls.push(request.url);
          throw new ProviderCheckoutError('offline', 'unavailable');
        },
        close: async () => undefined,
      };
      for (const mode of Object.keys(fixture.defaultHosts) as ProviderMode[]) {
        const withoutHosts = Object.fromEntries(Object.entries(kit.settings(mode)).filter(([name]) => !name.endsWith('_URL'))) as Static<S>;
        await kit.open(sampleOrder(currency), { adapter: await kit.build(mode, withoutHosts, { http: recording }) }).catch(() => undefined);
      }
      expect(urls).toEqual(Object.values(fixture.defaultHosts));
    });

    const { status } = fixture;
    if (status) {
      const { query = { paymentId: sampleOrder(currency).paymentId } } = status;
      const own = (status.failures ?? []).map(([name, answer]) => [name, () => answer] as const);
      it.each([...SHARED_STATUS_FAILURES, ...own])('status look-up, %s: throws, so the poller asks again later', async (_name, answer) => {
        const played = answer(kit.fake);
        kit.fake.script = () => played;
        const adapter = await kit.build();
        await expect(adapter.status!(query, { signal: AbortSignal.timeout(3000) })).rejects.toThrow(status.error);
      });
    }
  });

  return kit;
}
