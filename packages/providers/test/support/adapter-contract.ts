import type { Static, TObject } from '@sinclair/typebox';
import {
  ProviderWebhookError,
  type AdapterContext,
  type CheckoutOrder,
  type ProviderAdapter,
  type ProviderMode,
  type ProviderModule,
  type ProviderPaymentStatus,
  type WebhookHeaders,
} from '../../src/provider-contract';
import type { ProviderHttpClient } from '../../src/support/provider-http-client';
import type { TokenStore } from '../../src/support/shared-token-store';
import { checkoutLocation } from './checkout-target';

/**
 * The contract test suite every adapter runs (`describeAdapterContract` in its own test file).
 * What it needs from the adapter's test is written from the provider's documentation, never
 * from the adapter's code: how to read a checkout URL, and how the provider signs a webhook.
 */

/** A fixed clock for the contract: 2026-11-25T12:00:00Z. */
export const CONTRACT_NOW_MS = Date.UTC(2026, 10, 25, 12, 0, 0);

export function sampleOrder(currency: CheckoutOrder['currency']): CheckoutOrder {
  const paymentId = '6f1c2b9e-4d3a-4e8b-9a7c-2f5d8e1b3c40';
  return {
    paymentId,
    walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
    amount: '149.99',
    currency,
    email: 'jane+test@shop.io',
    returnUrl: `https://pay.example.org/payment/${paymentId}`,
    customerIp: '203.0.113.7',
  };
}

/** An HTTP client that fails the test if used; adapters that call out get a local fake instead. */
export const NO_HTTP: ProviderHttpClient = {
  request: async (request) => {
    throw new Error(`unexpected outgoing call to ${request.url}`);
  },
  close: async () => undefined,
};

/** A token store that fails the test if used; adapters with tokens get one on a real Redis or a map instead. */
export const NO_TOKENS: TokenStore = {
  current: async (name) => {
    throw new Error(`unexpected use of the token store (${name})`);
  },
  known: async () => [],
  discard: async () => undefined,
};

export function contractContext(id: string, mode: ProviderMode, overrides: Partial<AdapterContext> = {}): AdapterContext {
  return {
    mode,
    webhookUrl: `https://pay.example.org/webhooks/${id}`,
    http: NO_HTTP,
    tokens: NO_TOKENS,
    now: () => CONTRACT_NOW_MS,
    ...overrides,
  };
}

/** What a checkout URL carries, read the way the provider's documentation describes its parameters. */
export interface CheckoutReading {
  wallet: string;
  amount: string;
  currency: string;
  /** Our payment id, wherever the provider carries it (its order-id parameter, or the return URL); '' where it carries none. */
  reference: string;
}

/** The reading of the values a provider was asked for, as text (its JSON numbers too; nothing at all is ''). */
export const readingOf = (values: Record<keyof CheckoutReading, unknown>): CheckoutReading => {
  const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
  return { wallet: text(values.wallet), amount: text(values.amount), currency: text(values.currency), reference: text(values.reference) };
};

/**
 * The query parameters a link names each value by (the provider's own names). A provider that takes no order
 * reference carries our id as the last segment of the receipt page its return parameter names (`receiptIn`); one
 * that carries neither reads ''.
 */
export interface QueryNames {
  wallet: string;
  amount: string;
  currency: string;
  reference?: string;
  receiptIn?: string;
}

function queryReading(names: QueryNames, url: URL): CheckoutReading {
  const param = (name: string | undefined) => (name === undefined ? '' : (url.searchParams.get(name) ?? ''));
  const receipt =
    names.receiptIn === undefined ? '' : (new URL(param(names.receiptIn) || 'https://invalid/').pathname.split('/').pop() ?? '');
  return readingOf({
    wallet: param(names.wallet),
    amount: param(names.amount),
    currency: param(names.currency),
    reference: names.reference === undefined ? receipt : param(names.reference),
  });
}

export interface SignedWebhook {
  rawBody: Buffer;
  headers: WebhookHeaders;
}

export interface WebhookSample {
  paymentId: string;
  walletAddress: string;
  /** The gateway status the sample should map to. */
  status: Extract<ProviderPaymentStatus, 'paid' | 'failed' | 'declined'>;
}

export type AdapterContractFixture<S extends TObject> = AdapterContractBase<S> & (SignedWebhooks | { signWebhook?: undefined });

/** For a provider that signs its webhooks: how to sign one, and where its signature sits. */
interface SignedWebhooks {
  /**
   * A webhook as the provider sends it, signed as its documentation says (independently of the
   * adapter), at `nowMs`. Omitted for providers that sign no webhooks (descriptor.webhook null).
   */
  signWebhook(sample: WebhookSample, nowMs: number): SignedWebhook | Promise<SignedWebhook>;
  /** Where that webhook's signature sits, for the contract to alter it: a slot, or the header (and the part of it) it is in. */
  webhookSignature: WebhookSignatureSlot | SignatureHeader;
}

interface AdapterContractBase<S extends TObject> {
  module: ProviderModule<S>;
  /** Settings per mode the test covers (at least one), e.g. MoonPay's pk_live_/pk_test_ keys. */
  settings: Partial<Record<ProviderMode, Static<S>>>;
  /** Context overrides, e.g. a local fake for a provider called at checkout. */
  context?: (mode: ProviderMode) => Partial<AdapterContext>;
  /**
   * How to read the checkout, as one URL (a redirect URL, or a form action with its fields as query parameters): a
   * function, or the names of the query parameters that carry each value (`QueryNames`).
   */
  readCheckout: ((url: URL) => CheckoutReading | Promise<CheckoutReading>) | QueryNames;
  /**
   * False for a provider that takes no order reference and no return URL (Particle): the link
   * then must not carry our payment id either, and the reading's `reference` is not compared.
   */
  carriesReference?: boolean;
  /** False where the signature travels in the body (Transak's JWT): the body without headers is still signed. */
  signatureInHeaders?: boolean;
  /** False for schemes without a signed timestamp (the stale-replay test does not apply). */
  webhookHasTimestamp?: boolean;
  /**
   * The payload of a genuine webhook about `sample` (the JSON the provider signs), and how to sign
   * any payload the provider's way: the hostile-input cases change the payload and sign it again.
   * Required with signWebhook.
   */
  hostile?: HostileWebhookFixture;
}

export interface HostileWebhookFixture {
  payload(sample: WebhookSample): unknown;
  sign(payload: unknown, nowMs: number): SignedWebhook | Promise<SignedWebhook>;
}

export type SignatureEncoding = 'hex' | 'base64' | 'base64url';

/** A signature in header `header`: the whole value, or the part `part` matches (see signatureInHeader). */
export interface SignatureHeader {
  header: string;
  encoding: SignatureEncoding;
  part?: RegExp;
}

/** Where a webhook's signature travels (a header, part of one, or a body field), to read it and put another in its place. */
export interface WebhookSignatureSlot {
  encoding: SignatureEncoding;
  read(webhook: SignedWebhook): string;
  write(webhook: SignedWebhook, signature: string): SignedWebhook;
}

/**
 * The signature in header `name`: the whole value, or the part `part` matches (use a lookbehind
 * for what precedes it, e.g. `/(?<=,s=)[^,]*$/`).
 */
export function signatureInHeader(name: string, encoding: SignatureEncoding, part = /^.*$/): WebhookSignatureSlot {
  const headerOf = (webhook: SignedWebhook): string => {
    const value = webhook.headers[name];
    if (typeof value !== 'string') throw new Error(`the signed webhook has no single ${name} header`);
    return value;
  };
  return {
    encoding,
    read: (webhook) => {
      const found = part.exec(headerOf(webhook));
      if (!found) throw new Error(`${part} finds no signature in ${name}`);
      return found[0];
    },
    write: (webhook, signature) => ({ ...webhook, headers: { ...webhook.headers, [name]: headerOf(webhook).replace(part, signature) } }),
  };
}

/** The signature in a top-level string field of the JSON body; the rest of the body is written back as it was parsed. */
export function signatureInBodyField(field: string, encoding: SignatureEncoding): WebhookSignatureSlot {
  const bodyOf = (webhook: SignedWebhook) => JSON.parse(webhook.rawBody.toString('utf8')) as Record<string, unknown>;
  return {
    encoding,
    read: (webhook) => {
      const value = bodyOf(webhook)[field];
      if (typeof value !== 'string') throw new Error(`the signed webhook's body has no string ${field}`);
      return value;
    },
    write: (webhook, signature) => ({ ...webhook, rawBody: Buffer.from(JSON.stringify({ ...bodyOf(webhook), [field]: signature })) }),
  };
}

/** The signature part of a compact JWS/JWT carried in body field `field` (Transak's `{"data": "<JWT>"}`). */
export function jwtSignatureInBodyField(field: string): WebhookSignatureSlot {
  const token = signatureInBodyField(field, 'base64url');
  return {
    encoding: 'base64url',
    read: (webhook) => token.read(webhook).split('.')[2] ?? '',
    write: (webhook, signature) => {
      const [header, payload] = token.read(webhook).split('.');
      return token.write(webhook, `${header}.${payload}.${signature}`);
    },
  };
}

export const SIGNATURE_ALTERATIONS = ['its last character changed', 'one character short', 'cut to half', 'empty'] as const;
export type SignatureAlteration = (typeof SIGNATURE_ALTERATIONS)[number];

/**
 * A genuine signature altered the ways a verifier that compares too little lets through: its last
 * character changed (caught only by a comparison over the full length), one character short and
 * cut to half (caught only when the length is checked against the expected one, not the given
 * one), and empty. Base64 padding is no part of the signature: the characters before it are
 * altered, and a shortened one is sent without it (a prefix of the text, and of the bytes).
 */
export function tamperedSignature(signature: string, encoding: SignatureEncoding, alteration: SignatureAlteration): string {
  if (alteration === 'empty') return '';
  const data = encoding === 'hex' ? signature : signature.replace(/=+$/, '');
  if (alteration === 'one character short') return data.slice(0, -1);
  if (alteration === 'cut to half') return data.slice(0, Math.floor(data.length / 2));
  return `${data.slice(0, -1)}${anotherCharacter(data.slice(-1), signature, encoding)}${signature.slice(data.length)}`;
}

function anotherCharacter(character: string, signature: string, encoding: SignatureEncoding): string {
  if (encoding === 'hex') {
    const digits = /[A-F]/.test(signature) ? '0123456789ABCDEF' : '0123456789abcdef';
    return digits[(Number.parseInt(character, 16) + 1) % 16]!;
  }
  // Its highest bit: the low bits of a last base64 character can be unused, and decoding drops them.
  const alphabet = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789${encoding === 'base64' ? '+/' : '-_'}`;
  return alphabet[alphabet.indexOf(character) ^ 0b100000]!;
}

export function describeAdapterContract<S extends TObject>(fixture: AdapterContractFixture<S>): void {
  const { descriptor } = fixture.module;
  const modes = Object.keys(fixture.settings) as ProviderMode[];
  const currency = descriptor.currency === 'any' ? 'EUR' : descriptor.currency;
  const build = (mode: ProviderMode): Promise<ProviderAdapter> =>
    Promise.resolve(fixture.module.create(fixture.settings[mode]!, contractContext(descriptor.id, mode, fixture.context?.(mode))));

  describe(`${descriptor.id}: the adapter contract`, () => {
    it('has a valid descriptor', () => {
      expect(descriptor.id).toMatch(/^[a-z0-9]{2,32}$/);
      expect(descriptor.displayName.length).toBeGreaterThan(1);
      expect(descriptor.currency === 'any' || /^[A-Z]{3}$/.test(descriptor.currency)).toBe(true);
      expect(descriptor.minimum).toMatch(/^\d+(\.\d{1,2})?$/);
      expect(descriptor.minimumCurrency).toMatch(/^[A-Z]{3}$/);
      expect(['signed-url', 'url', 'session']).toContain(descriptor.flow);
      expect(['native', 'bridged']).toContain(descriptor.delivers);
      expect(new URL(descriptor.docs).protocol).toBe('https:');
      expect(new URL(descriptor.hosts.live).protocol).toBe('https:');
      expect(new URL(descriptor.hosts.test).protocol).toBe('https:');
      expect(descriptor.settings.type).toBe('object');
      for (const [name, schema] of Object.entries(descriptor.settings.properties)) {
        expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
        expect(name).not.toBe('MODE');
        expect((schema as { description?: string }).description).toBeTruthy();
      }
      // An unsigned provider's webhooks are routed (webhook not null) but have no signature to sign them with.
      expect(descriptor.webhook === null || descriptor.webhookUnsigned === true).toBe(fixture.signWebhook === undefined);
      expect(fixture.hostile === undefined).toBe(fixture.signWebhook === undefined);
      expect(modes.length).toBeGreaterThan(0);
    });

    it.each(modes)('%s settings select that mode', (mode) => {
      const requested = Object.keys(fixture.settings).length > 1 || mode === 'test' ? mode : undefined;
      expect(fixture.module.modeOf(fixture.settings[mode]!, requested)).toBe(mode);
    });

    it.each(modes)(
      "%s mode: the checkout is https on the mode's host and carries the wallet, amount, currency and our reference",
      async (mode) => {
        const adapter = await build(mode);
        expect(adapter.mode).toBe(mode);
        const order = sampleOrder(currency);
        const created = await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal });
        const url = checkoutLocation(created);
        if (created.expiresAt !== undefined) expect(created.expiresAt).toBeGreaterThan(CONTRACT_NOW_MS);
        const host = new URL(descriptor.hosts[mode]).hostname;
        expect(url.protocol).toBe('https:');
        expect(url.hostname === host || url.hostname.endsWith(`.${host}`)).toBe(true);
        const reading = await (typeof fixture.readCheckout === 'function'
          ? fixture.readCheckout(url)
          : queryReading(fixture.readCheckout, url));
        expect(reading.wallet.toLowerCase()).toBe(order.walletAddress.toLowerCase());
        expect(Number(reading.amount).toFixed(2)).toBe(order.amount);
        expect(reading.currency.toUpperCase()).toBe(order.currency);
        if (fixture.carriesReference === false) expect(url.toString()).not.toContain(order.paymentId);
        else expect(reading.reference).toBe(order.paymentId);
      },
    );

    if (!fixture.signWebhook) return;
    const sign = fixture.signWebhook.bind(fixture);
    const place = fixture.webhookSignature;
    const slot = 'read' in place ? place : signatureInHeader(place.header, place.encoding, place.part);
    const mode = modes[0]!;
    const sample = (status: WebhookSample['status']): WebhookSample => ({
      paymentId: sampleOrder(currency).paymentId,
      walletAddress: sampleOrder(currency).walletAddress,
      status,
    });

    it.each(['paid', 'failed'] as const)('a signed "%s" webhook round-trips to that status and names the payment', async (status) => {
      const adapter = await build(mode);
      const webhook = await sign(sample(status), CONTRACT_NOW_MS);
      const outcome = await adapter.verifyWebhook(webhook.rawBody, webhook.headers);
      expect(outcome.kind).toBe('event');
      if (outcome.kind !== 'event') return;
      const mapped = outcome.event.status === 'declined' ? 'failed' : outcome.event.status;
      expect(mapped).toBe(status);
      expect(outcome.event.rawStatus.length).toBeGreaterThan(0);
      const { match } = outcome.event;
      expect(
        match.paymentId === sample(status).paymentId ||
          match.walletAddress?.toLowerCase() === sample(status).walletAddress.toLowerCase() ||
          match.providerReference !== undefined,
      ).toBe(true);
      expect(outcome.acknowledgement.statusCode).toBeGreaterThanOrEqual(200);
      expect(outcome.acknowledgement.statusCode).toBeLessThan(300);
    });

    it('a tampered body is refused', async () => {
      const adapter = await build(mode);
      const webhook = await sign(sample('paid'), CONTRACT_NOW_MS);
      // A value changed (its first digit), as an attacker would change an amount or an id.
      const text = webhook.rawBody.toString('utf8');
      const at = text.search(/\d/);
      expect(at).toBeGreaterThanOrEqual(0);
      const tampered = Buffer.from(`${text.slice(0, at)}${(Number(text[at]) + 1) % 10}${text.slice(at + 1)}`, 'utf8');
      const altered = Buffer.from(webhook.rawBody);
      const middle = Math.floor(altered.length / 2);
      altered.writeUInt8(altered.readUInt8(middle) ^ 0x01, middle);
      await expect(adapter.verifyWebhook(tampered, webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
      await expect(adapter.verifyWebhook(altered, webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    });

    it('the webhook signature slot reads the signature the webhook was signed with', async () => {
      const webhook = await sign(sample('paid'), CONTRACT_NOW_MS);
      const signature = slot.read(webhook);
      expect(signature.length).toBeGreaterThanOrEqual(16);
      expect(Buffer.from(signature, slot.encoding).toString(slot.encoding)).toBe(signature);
      // Written back unchanged, it still verifies: the alterations below change nothing but the signature.
      const rewritten = slot.write(webhook, signature);
      await expect((await build(mode)).verifyWebhook(rewritten.rawBody, rewritten.headers)).resolves.toMatchObject({ kind: 'event' });
    });

    it.each(SIGNATURE_ALTERATIONS)('a webhook whose signature is %s is refused', async (alteration) => {
      const adapter = await build(mode);
      const webhook = await sign(sample('paid'), CONTRACT_NOW_MS);
      const signature = slot.read(webhook);
      const altered = tamperedSignature(signature, slot.encoding, alteration);
      // Different in the bytes a verifier decodes, not only in the text.
      expect(Buffer.from(altered, slot.encoding).equals(Buffer.from(signature, slot.encoding))).toBe(false);
      const forged = slot.write(webhook, altered);
      await expect(adapter.verifyWebhook(forged.rawBody, forged.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    });

    if (fixture.signatureInHeaders !== false)
      it('a webhook without its signature is refused', async () => {
        const adapter = await build(mode);
        const webhook = await sign(sample('paid'), CONTRACT_NOW_MS);
        await expect(adapter.verifyWebhook(webhook.rawBody, {})).rejects.toBeInstanceOf(ProviderWebhookError);
      });

    if (fixture.hostile) {
      const hostile = fixture.hostile;
      describeHostileWebhooks(
        () => build(mode),
        hostile.payload(sample('paid')),
        (payload) => hostile.sign(payload, CONTRACT_NOW_MS),
      );
    }

    if (fixture.webhookHasTimestamp !== false) {
      it('a webhook signed an hour ago (a replay) is refused', async () => {
        const adapter = await build(mode);
        const webhook = await sign(sample('paid'), CONTRACT_NOW_MS - 3_600_000);
        await expect(adapter.verifyWebhook(webhook.rawBody, webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
      });
    }
  });
}

type JsonPath = readonly (string | number)[];

/** Every path into `value` (objects' properties and arrays' items, at any depth), the root excluded. */
function pathsOf(value: unknown, path: JsonPath = []): JsonPath[] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value as Record<string, unknown>);
  return entries.flatMap(([key, inner]) => [[...path, key], ...pathsOf(inner, [...path, key])]);
}

function valueAt(value: unknown, path: JsonPath): unknown {
  return path.reduce<unknown>((inner, key) => (inner as Record<string | number, unknown>)[key], value);
}

/** A copy of `value` with the value at `path` replaced. */
function replacedAt(value: unknown, path: JsonPath, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [key, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>;
  copy[key] = replacedAt(copy[key], rest, replacement);
  return copy;
}

const HUGE = 'x'.repeat(64 * 1024);

/**
 * The hostile changes of a genuine payload, each alone, by kind: every string with a NUL (and other
 * control characters) put in, made huge; every value (strings, numbers, objects, arrays) of another
 * type; every value null, and the payload itself not an object.
 */
export function hostilePayloads(payload: unknown): Record<'nul' | 'huge' | 'types' | 'null', { name: string; payload: unknown }[]> {
  const paths = pathsOf(payload);
  const strings = paths.filter((path) => typeof valueAt(payload, path) === 'string');
  const at = (path: JsonPath) => path.join('.');
  const each = (selected: JsonPath[], changes: [string, (value: unknown) => unknown][]) =>
    selected.flatMap((path) =>
      changes.map(([name, change]) => ({
        name: `${at(path)}: ${name}`,
        payload: replacedAt(payload, path, change(valueAt(payload, path))),
      })),
    );
  const middle = (text: string, inserted: string) => `${text.slice(0, text.length >> 1)}${inserted}${text.slice(text.length >> 1)}`;
  return {
    nul: each(strings, [
      ['a NUL inside', (text) => middle(String(text), '\u0000')],
      ['a NUL after', (text) => `${String(text)}\u0000`],
      ['only a NUL', () => '\u0000'],
      ['control characters', (text) => middle(String(text), '\u0007\u001b[31m\u007f\u0085\r\n')],
      ['half a surrogate pair', (text) => `${String(text)}\ud800`],
    ]),
    huge: each(strings, [
      ['64 KiB more', (text) => `${String(text)}${HUGE}`],
      ['64 KiB of NULs', () => '\u0000'.repeat(64 * 1024)],
    ]),
    types: each(paths, [
      ['a number', () => 12_345],
      ['a fraction', () => -1.5],
      ['a boolean', () => true],
      ['an object', () => ({ value: 'x' })],
      ['an array', () => ['x']],
      ['a string', (value) => (typeof value === 'string' ? `${value}-changed` : 'x')],
    ]),
    null: [
      ...each(paths, [['null', () => null]]),
      { name: 'the payload null', payload: null },
      { name: 'the payload an array', payload: [] },
      { name: 'the payload a string', payload: 'x' },
      { name: 'the payload a number', payload: 0 },
      { name: 'the payload an empty object', payload: {} },
    ],
  };
}

const GATEWAY_STATUSES: readonly ProviderPaymentStatus[] = ['pending', 'charged', 'paid', 'declined', 'failed'];

/** What the webhook route can answer without a 500: a refusal it turns into a 4xx, or an outcome of the contract's types. */
async function expectAnsweredWithout500(adapter: ProviderAdapter, webhook: SignedWebhook, name: string): Promise<'refused' | string> {
  let outcome: Awaited<ReturnType<ProviderAdapter['verifyWebhook']>>;
  try {
    outcome = await adapter.verifyWebhook(webhook.rawBody, webhook.headers);
  } catch (error) {
    // Anything but ProviderWebhookError is answered 503 (the provider retries it for days).
    expect({ name, error: error instanceof ProviderWebhookError ? 'ProviderWebhookError' : String(error) }).toEqual({
      name,
      error: 'ProviderWebhookError',
    });
    return 'refused';
  }
  const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
  const { statusCode, contentType, body } = outcome.acknowledgement;
  expect({ name, ack: statusCode >= 200 && statusCode < 500 && typeof contentType === 'string' && typeof body === 'string' }).toEqual({
    name,
    ack: true,
  });
  if (outcome.kind === 'ignored') {
    expect({ name, why: typeof outcome.why }).toEqual({ name, why: 'string' });
    return 'ignored';
  }
  const { event } = outcome;
  expect({
    name,
    status: GATEWAY_STATUSES.includes(event.status),
    rawStatus: typeof event.rawStatus,
    strings: [event.match.paymentId, event.match.providerReference, event.match.walletAddress, event.providerReference, event.reason].every(
      optionalString,
    ),
  }).toEqual({ name, status: true, rawStatus: 'string', strings: true });
  return 'event';
}

/**
 * Hostile input, correctly signed: whatever the body holds, the adapter refuses it (a 4xx) or reads
 * it into the contract's types (ignored, or an event whose strings the provider status writer makes
 * fit to store: provider-report in @gateway/domain, property-tested in packages/db), never throws
 * anything else. The genuine payload, signed the same way, is read as an event first, so the cases
 * are not all refused for a signing mistake of the test's.
 */
export function describeHostileWebhooks(
  build: () => Promise<ProviderAdapter>,
  payload: unknown,
  sign: (payload: unknown) => SignedWebhook | Promise<SignedWebhook>,
): void {
  const cases = hostilePayloads(payload);
  it('the genuine payload, signed again by the hostile fixture, is read as an event', async () => {
    const adapter = await build();
    expect(await expectAnsweredWithout500(adapter, await sign(payload), 'genuine')).toBe('event');
  });

  it.each([
    ['NULs and control characters', 'nul'],
    ['huge strings', 'huge'],
    ['wrong types', 'types'],
    ['null', 'null'],
  ] as const)(
    '%s, each correctly signed: refused with a 4xx, ignored or read into well-typed fields, never another error',
    async (_what, kind) => {
      const adapter = await build();
      expect(cases[kind].length).toBeGreaterThan(0);
      const answers = new Set<string>();
      for (const { name, payload: changed } of cases[kind]) answers.add(await expectAnsweredWithout500(adapter, await sign(changed), name));
      // Not every case refused: some reach the adapter's reading of the body.
      expect([...answers].some((answer) => answer !== 'refused')).toBe(true);
    },
  );
}
