import type { Static, TObject } from '@sinclair/typebox';
import type {
  CurrencyCode,
  CustomerLocation,
  DeclineKind,
  DocumentedFees,
  EvmAddress,
  ProviderPaymentStatus,
  ProviderTerms,
  ReportedDestination,
} from '@gateway/domain';
import type { ProviderEventStore } from './support/provider-event-store';
import type { ProviderHttpClient } from './support/provider-http-client';
import type { TokenStore } from './support/shared-token-store';

export { ProviderCheckoutError, type ProviderFailureKind, ProviderWebhookError } from './provider-errors';

export type { ProviderPaymentStatus };

/**
 * The contract every on-ramp lives behind (after Medusa's payment providers and Hyperswitch's
 * connectors): a descriptor that says what the provider is, and an adapter built from the
 * operator's settings that creates checkouts and reads webhooks. Adding a provider is a folder
 * under `adapters/<id>/` and one line in `provider-modules.ts`.
 */

/**
 * How the customer's checkout is made: a URL we sign ourselves, a plain URL with our parameters,
 * or a session the provider creates on a server-to-server call first (which may fail).
 */
export type CheckoutFlow = 'signed-url' | 'url' | 'session';

/** The two USDC tokens on Polygon PoS: Circle's native USDC and the PoS-bridged USDC.e. */
export const POLYGON_USDC = {
  native: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  bridged: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
} as const satisfies Record<string, EvmAddress>;
export type PolygonUsdc = keyof typeof POLYGON_USDC;

/**
 * A provider's card fee range as its own pages document it, and where: the processing fee in basis
 * points of the order's value (a network fee only where the provider states it as a percentage; a
 * fixed minimum fee is left out). A provider that publishes no figure gets ASSUMED_CARD_FEES, and
 * its adapter says what was searched.
 */
export interface DocumentedCardFees extends DocumentedFees {
  /** The provider's page the range is read from (https), or the page found nearest to one. */
  readonly source: string;
}

/**
 * The descriptor of a provider module: what the checkout's choice needs of it (issue 32) is
 * required here, each figure with the page it is read from, or labelled as assumed or undocumented.
 */
export type AdapterDescriptor<S extends TObject = TObject> = Omit<ProviderDescriptor<S>, keyof ChoiceFacts> & ChoiceFacts;

/** ProviderTerms' facts for the checkout's choice that every adapter states. */
export type ChoiceFacts = { readonly [K in 'methods' | 'timeToUsdc' | 'countries']-?: NonNullable<ProviderTerms[K]> };

export interface ProviderDescriptor<S extends TObject = TObject> extends ProviderTerms {
  readonly fees: DocumentedCardFees;
  readonly flow: CheckoutFlow;
  /**
   * How long the whole createCheckout may take, every call in it (token + session, quote +
   * payment) and its retries under one AbortSignal; the customer then gets the error page. A
   * session provider states its own; url and signed-url flows make no call and take the default
   * (see checkoutDeadlineMs). CHECKOUT_TIMEOUT_MS, when an operator sets it, caps every provider's.
   */
  readonly checkoutDeadlineMs?: number;
  /** How its webhooks are signed, in a few words (e.g. "HMAC-SHA256, Moonpay-Signature-V2"); null when it sends none we use. */
  readonly webhook: string | null;
  /**
   * Its webhooks carry no signature (Wert): anyone could send one, so one is only a hint. It is
   * answered 2xx at once (such a provider disables an endpoint that fails) and makes the gateway
   * ask the provider (`status()`); what its body says is never recorded.
   */
  readonly webhookUnsigned?: boolean;
  /**
   * Its signed webhooks sign no time (TransFi, Transak): a replay cannot be refused by age, so each
   * is recorded once (by its event id, else its order and status word) and only moves a status forward.
   */
  readonly webhookUntimed?: boolean;
  /**
   * Its status reports (webhooks, look-ups) carry the wallet the order delivers to, as documented: a
   * report of charged or paid without it is not trusted (our payment id alone, an unsigned URL
   * parameter at most providers, proves nothing).
   */
  readonly reportsDestination?: boolean;
  /** Which USDC on Polygon it delivers: the chain watcher must follow that token, or the provider cannot be used. */
  readonly delivers: PolygonUsdc;
  /**
   * The operator's settings, named after the provider's own terms, without the prefix: `API_KEY`
   * here is `PROVIDER_MOONPAY_API_KEY` (or `PROVIDER_MOONPAY_API_KEY_FILE`) in the environment.
   * Properties not wrapped in Type.Optional are required once any setting of the provider is given.
   */
  readonly settings: S;
  /** The checkout host of each mode, e.g. https://buy.moonpay.com and https://buy-sandbox.moonpay.com. */
  readonly hosts: { readonly live: string; readonly test: string };
  /** The documentation page the adapter follows. */
  readonly docs: string;
  /**
   * Set when the provider runs on another provider's merchant account (Interac e-Transfer on
   * MoonPay's): that account sends one webhook URL for all its orders, so its webhooks arrive at
   * `/webhooks/<account>` and are matched against the payments of both.
   */
  readonly account?: string;
}

/** `live` for real money; `test` when the credentials are the provider's sandbox ones (its documented test host). */
export type ProviderMode = 'live' | 'test';

/** What the gateway asks an on-ramp for: deliver USDC for this order to this wallet. */
export interface CheckoutOrder {
  /** Our reference for the order (the gateway payment id, a UUID): sent to the provider wherever it takes one. */
  paymentId: string;
  /** Temporary wallet that receives the USDC (EIP-55). */
  walletAddress: EvmAddress;
  /** Fiat amount, a decimal string with two decimals. */
  amount: string;
  currency: CurrencyCode;
  email: string;
  /** The customer's receipt page for this payment: where the provider sends the customer back. */
  returnUrl: string;
  /** The customer's IP address as the payment host sees it (Mercuryo signs it, session APIs ask for it). */
  customerIp: string;
  /**
   * Fees on top (issue 32): the USDC, base units, the wallet must receive. Given only to a provider
   * whose descriptor has `fixedUsdc`; its checkout then sells exactly this amount through that
   * parameter instead of the fiat `amount` (still the order's), and the customer pays its fees above it.
   */
  usdc?: bigint;
}

export interface CheckoutOptions {
  /**
   * One per checkout attempt of the payment (the payment id for the first): a provider that takes
   * an idempotency key gets it, so a retried call opens one session, and a fresh attempt a new one.
   */
  idempotencyKey: string;
  /** Aborted when the customer's request gives up or the checkout deadline passes. */
  signal: AbortSignal;
}

/**
 * Where the customer's browser goes, always top-level (never a frame, spec 1.5): a URL it is
 * redirected to, or a form it POSTs (the payment host serves that as an auto-submitting page).
 */
export type CheckoutTarget =
  | { readonly kind: 'redirect'; readonly url: string }
  | { readonly kind: 'form'; readonly action: string; readonly fields: Readonly<Record<string, string>> };

export type CreatedCheckout = CheckoutTarget & {
  /** Unix milliseconds after which the provider refuses it; absent for a URL that never expires. */
  readonly expiresAt?: number;
  /** The provider accepts it once (a session URL): a second visit needs a fresh checkout. */
  readonly singleUse?: boolean;
  /** The provider's own id for the order, when it gives one at this point. */
  readonly providerReference?: string;
};

/** How a webhook names the payment it is about; the first that matches a payment of that provider wins. */
export interface WebhookPaymentMatch {
  /** Our reference, echoed back by the provider. */
  paymentId?: string;
  /** The provider's own id for the order. */
  providerReference?: string;
  /** The temporary wallet the provider delivers to: the latest payment of this provider into it. */
  walletAddress?: string;
}

/**
 * What a provider says about a payment. It updates what the customer and the merchant see; it
 * never moves funds or sends a merchant callback (the chain is the source of truth for money).
 */
export interface ProviderWebhookEvent {
  match: WebhookPaymentMatch;
  /** Mapped to the gateway's words. */
  status: ProviderPaymentStatus;
  /** The provider's own status word, kept beside the mapped one. */
  rawStatus: string;
  /** The provider's id for the order, recorded for support. */
  providerReference?: string;
  /** Why a payment was declined or failed, in words a customer understands. */
  reason?: string;
  /**
   * The kind of that reason (decline-kinds.ts): present exactly when the status is declined or failed, `other`
   * where the provider documents no reason for it (declineKindOfReport; paymentEvent and declineKindField apply it).
   */
  declineKind?: DeclineKind;
  /** The transaction the provider sent the USDC in, where it reports one (deliveryTxHash): it decides which attempt paid. */
  txHash?: string;
  /** Where the order delivers (wallet, network, asset in the provider's words), each part where the provider reports it. */
  destination?: ReportedDestination;
  /** The provider gave the money back (a refund): the only end of a payment whose card was charged. Reported as `failed`. */
  refunded?: boolean;
  /** The provider's id of this notification, where it sends one: a replay of an untimed webhook is known by it. */
  eventId?: string;
}

/** The answer the provider expects once a webhook is accepted (some want a particular body). */
export interface WebhookAcknowledgement {
  statusCode: number;
  contentType: string;
  body: string;
}

export type WebhookOutcome =
  /** Authentic, about a payment: record it. */
  | { kind: 'event'; event: ProviderWebhookEvent; acknowledgement: WebhookAcknowledgement }
  /** Authentic, but nothing to record (another event type, a sell order, a test ping). */
  | { kind: 'ignored'; why: string; acknowledgement: WebhookAcknowledgement };

export type WebhookHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** What the gateway knows of an order when it asks the provider about it. */
export interface ProviderStatusQuery {
  /** Our payment id, sent to the provider as its order reference wherever it takes one. */
  paymentId: string;
  /** The provider's own id for the order, once a checkout or webhook gave it: the order followed. */
  providerReference?: string;
  /** The payment's temporary wallet: among orders carrying our id (anyone can open one), the one delivering there is ours. */
  walletAddress?: string;
}

/** A provider's public price for an order: what the customer pays and what the wallet gets. */
export interface ProviderQuote {
  /** USDC the wallet receives, token base units. */
  usdc: bigint;
  /** Total the customer pays, fees included, as a decimal string in `currency`. */
  total: string;
  currency: CurrencyCode;
}

/** A quote API that prices an order for a customer's location: asked only for a location it can price. */
export interface LocatedQuote {
  /** Whether a customer at `location` can be quoted (Coinbase: a US customer's state is needed too). */
  prices(location: CustomerLocation): boolean;
  quote(
    order: Pick<CheckoutOrder, 'amount' | 'currency'> & { location: CustomerLocation },
    options: { signal: AbortSignal },
  ): Promise<ProviderQuote>;
}

export interface ProviderAdapter {
  readonly descriptor: ProviderDescriptor;
  /** `sandbox`: the local simulated checkout standing in for a provider without credentials. */
  readonly mode: ProviderMode | 'sandbox';
  createCheckout(order: CheckoutOrder, options: CheckoutOptions): Promise<CreatedCheckout>;
  /**
   * Verifies a webhook on the bytes as received and reads it. Throws {@link ProviderWebhookError}
   * when it is not authentic (missing, wrong or stale signature; a body that is not the provider's).
   */
  verifyWebhook(rawBody: Buffer, headers: WebhookHeaders): Promise<WebhookOutcome>;
  /**
   * Where the provider has an order look-up API: asks it for the order's status, read into the event
   * a webhook gives; null while the provider knows no such order (the checkout was not opened yet).
   * Throws when it cannot be reached or answers with an error: the poller asks again later.
   */
  status?(query: ProviderStatusQuery, options: { signal: AbortSignal }): Promise<ProviderWebhookEvent | null>;
  /** Where the provider has a public quote API. */
  quote?(order: Pick<CheckoutOrder, 'amount' | 'currency'>, options: { signal: AbortSignal }): Promise<ProviderQuote>;
  /**
   * Where its quote API prices a fixed USDC amount (fees on top): what the customer pays, fees
   * included, in `currency` for `usdc` base units delivered.
   */
  quoteUsdc?(order: { usdc: bigint; currency: CurrencyCode }, options: { signal: AbortSignal }): Promise<ProviderQuote>;
  /** Where its quote API prices per customer location instead (Coinbase's Buy Quote asks the customer's country). */
  locatedQuote?: LocatedQuote;
  /**
   * Where the provider keeps a queue of events it wants read and deleted (Simplex): reads it, keeps
   * each event (AdapterContext.events), then deletes it at the provider; answers what the kept
   * events say, so their payments are asked at once. One consumer at a time (the caller's lock).
   * Throws when the provider fails: what was kept stays kept, the rest is read again next time.
   */
  consumeEvents?(options: { signal: AbortSignal }): Promise<ProviderWebhookEvent[]>;
}

/** What an adapter is built with besides its own settings. */
export interface AdapterContext {
  mode: ProviderMode;
  /** `{payment_url}/webhooks/<id>`: for providers that take the webhook URL per order, or sign its path. */
  webhookUrl: string;
  /** Outgoing calls to the provider (sessions, quotes, order look-ups): timeouts and a retry budget. */
  http: ProviderHttpClient;
  /** Credentials that outlive one request (an access token), shared by every replica, minted by one at a time. */
  tokens: TokenStore;
  /** Events read from a provider's queue (consumeEvents), kept in the gateway's database; only such a provider needs it. */
  events?: ProviderEventStore;
  /** Unix milliseconds; tests move it. */
  now: () => number;
}

/** A provider as the registry knows it: its descriptor, how its mode follows from its settings, and its adapter. */
export interface ProviderModule<S extends TObject = TObject> {
  readonly descriptor: AdapterDescriptor<S>;
  /**
   * The mode its credentials select. `requested` is `PROVIDER_<ID>_MODE` when given; a provider
   * whose keys say it themselves (MoonPay's `pk_test_`) refuses a contradicting one by throwing.
   */
  modeOf(settings: Static<S>, requested: ProviderMode | undefined): ProviderMode;
  /** May be async: keys are imported (and a bad one refused) at boot. */
  create(settings: Static<S>, context: AdapterContext): ProviderAdapter | Promise<ProviderAdapter>;
}

/**
 * Declares a provider module with its settings type inferred from the descriptor's schema. Without
 * `modeOf` its mode is the one PROVIDER_<ID>_MODE asks for (modeFromSetting): its keys do not say it.
 */
export function defineProvider<S extends TObject>(
  module: Omit<ProviderModule<S>, 'modeOf'> & Partial<Pick<ProviderModule<S>, 'modeOf'>>,
): ProviderModule<S> {
  return { modeOf: modeFromSetting, ...module };
}

/** The provider mode from `PROVIDER_<ID>_MODE` alone, for providers whose keys do not say it: live unless asked. */
export function modeFromSetting(_settings: unknown, requested: ProviderMode | undefined): ProviderMode {
  return requested ?? 'live';
}

/** The deadline of a checkout at a provider whose descriptor sets none: a URL built without a call, or a session. */
export const DEFAULT_CHECKOUT_DEADLINE_MS: Readonly<Record<CheckoutFlow, number>> = { 'signed-url': 5_000, url: 5_000, session: 10_000 };

/** How long this provider's createCheckout may take in all: its descriptor's deadline, else its flow's default. */
export function checkoutDeadlineMs(descriptor: Pick<ProviderDescriptor, 'flow' | 'checkoutDeadlineMs'>): number {
  return descriptor.checkoutDeadlineMs ?? DEFAULT_CHECKOUT_DEADLINE_MS[descriptor.flow];
}
