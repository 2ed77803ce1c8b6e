import type { JsonWebKey } from 'node:crypto';
import { type PersonalMessageSigner, signAffiliateConsent } from './affiliate-consent';
import { buildHostedPaymentLink, buildPaymentLink, type HostedPaymentLinkInput, type PaymentLinkInput } from './payment-link';

// The calls a shop makes to the gateway's {base_url} host (wallet-control), with Node's own fetch:
// the SDK stays free of dependencies. Every answer is the API's as documented in the gateway's docs/api.md
// ("Create Wallet", "Convert to USD", "Check Payment Status"); names are camelCase where the SDK
// builds an object of its own, and the API's where it hands the answer on.

export interface GatewayClientOptions {
  /** The gateway's `{base_url}` (wallet-control), e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The gateway's `{payment_url}` (payment-redirect), e.g. `https://pay.example.com`: for the payment links. */
  paymentUrl: string;
  /** Per request; default 10 000. */
  timeoutMs?: number;
  /** Another fetch (a proxy agent's, a test's); default the global one. */
  fetch?: typeof fetch;
}

/** A temporary wallet for one order, as Create Wallet answers it. */
export interface GatewayWallet {
  /** The sealed token the payment links carry. */
  addressIn: string;
  /** The plain temporary address the USDC arrives at. */
  polygonAddressIn: string;
  /** The callback URL as registered. */
  callbackUrl: string;
  /** Quote it to check the payment's status; every callback of this wallet carries it. */
  ipnToken: string;
}

export interface WalletInput {
  /** Your payout address: the USDC, less the fees, goes there. */
  payoutAddress: string;
  /** Your callback URL for this order, e.g. `https://shop.example/ipn?order_id=1234` (not encoded). */
  callbackUrl: string;
  /**
   * Optional: how far (basis points, 0–5000) the USDC of this order may differ from what it should
   * bring and still be paid; it narrows the operator's tolerance, never widens it.
   */
  orderToleranceBps?: number;
  /**
   * Optional: true, the customer pays the provider's fees on top, so you receive the order's full
   * value (after the gateway's fee), where the provider can sell a fixed amount of USDC; false, the
   * fees stay inside the order amount; unset, the gateway's operator decides (CUSTOMER_PAYS_FEES).
   */
  customerPaysFee?: boolean;
}

/**
 * The payout address owner's consent to affiliate terms: a `signature` made beforehand, or a
 * `signer` holding the payout address's key (a viem account) that signs here. Not needed when
 * the gateway's operator lists the affiliate (AFFILIATE_ADDRESSES).
 */
export type AffiliateConsent = { signature: string } | { signer: PersonalMessageSigner };

export interface AffiliateWalletInput extends WalletInput {
  affiliateAddress: string;
  /**
   * With a `signer`: the split the gateway applies to affiliate.php wallets, as its operator
   * publishes it (the affiliate's share, and what it and the platform fee leave you): the
   * signature covers it. The defaults are 0.985 and 0.005.
   */
  consent?: AffiliateConsent & { merchantFee?: string; affiliateFee?: string };
}

export interface CustomAffiliateWalletInput extends WalletInput {
  affiliateAddress: string;
  /** Your share, a decimal fraction ("0.98"). */
  merchantFee: string;
  /** The affiliate's share ("0.01"); with yours it leaves exactly the platform fee. */
  affiliateFee: string;
  consent?: AffiliateConsent;
}

export interface Conversion {
  /** USD with two decimals, rounded up to the cent: what a USD-only provider is asked for. */
  valueCoin: string;
  /** USD per unit of the currency converted, for information. */
  exchangeRate: string;
}

/** One USDC transfer into the temporary wallet (Check Payment Status). */
export interface PaymentStatusDeposit {
  status: string;
  attention_reason: string | null;
  amount: string;
  value_forwarded_coin: string | null;
  fee_coin: string | null;
  txid_in: string;
  txid_out: string | null;
  seen_at: string;
  forwarded_at: string | null;
  payment_id: string | null;
  provider: string | null;
}

/** One Process Payment call on the wallet (Check Payment Status). */
export interface PaymentStatusPayment {
  payment_id: string;
  provider: string;
  amount: string;
  currency: string;
  provider_status: string | null;
  provider_reference: string | null;
  created_at: string;
  provider_updated_at: string | null;
}

/** Where the order stands (Check Payment Status's `order`): the figures the callbacks carry, and why. */
export interface PaymentStatusOrder {
  /** USDC of the order's final deposits, decimal. */
  total_coin: string;
  /** What the order should bring; null (with every figure below but `reason`) when no attempt recorded it. */
  expected_coin: string | null;
  expected_basis: 'quote' | 'estimate' | null;
  state: 'awaiting' | 'paid' | 'underpaid' | 'overpaid' | 'late' | null;
  missing_coin: string | null;
  excess_coin: string | null;
  late_coin: string | null;
  tolerance_bps: number | null;
  window_ends_at: string | null;
  judged_by: { payment_id: string; provider: string; amount: string; currency: string; amount_usd: string } | null;
  reason: string;
}

/** One callback of the wallet and its newest attempts (Check Payment Status's `callback_log`). */
export interface PaymentStatusCallback {
  delivery_id: string;
  status: 'pending' | 'delivered' | 'failed' | 'refused';
  attempts: Array<{
    attempt_no: number;
    started_at: string;
    http_status: number | null;
    error_code: string | null;
    response_excerpt: string;
  }>;
  [field: string]: unknown;
}

/** Check Payment Status's answer, as the API gives it. */
export interface PaymentStatus {
  status: 'paid' | 'unpaid';
  value_coin: string;
  value_forwarded_coin: string;
  fee_coin: string;
  txid_in: string | null;
  txid_out: string | null;
  coin: string;
  polygon_address_in: string;
  payout_address: string;
  callback_url: string;
  deposits: PaymentStatusDeposit[];
  deposit_count: number;
  payments: PaymentStatusPayment[];
  /** Absent from gateways before order states. */
  order?: PaymentStatusOrder;
  callback_log?: { delivery_count: number; deliveries: PaymentStatusCallback[] };
}

/**
 * The gateway refused a request, or could not be reached. `code` and `param` are the gateway's
 * (`invalid_parameter`, `callback_registered_elsewhere`, `affiliate_consent_required`, …; `param`
 * names the field to fix); `timeout`, `network_error` and `unexpected_response` are the SDK's own,
 * with `status` 0 when no HTTP answer came.
 */
export class GatewayRequestError extends Error {
  override readonly name = 'GatewayRequestError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    /** From `Retry-After` on a 429 or 503: when to ask again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_AFFILIATE_SPLIT = { merchantFee: '0.985', affiliateFee: '0.005' };

export class GatewayClient {
  private readonly baseUrl: string;
  private readonly paymentUrl: string;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: GatewayClientOptions) {
    this.baseUrl = hostUrl(options.baseUrl, 'baseUrl');
    this.paymentUrl = hostUrl(options.paymentUrl, 'paymentUrl');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Create Wallet (`/control/wallet.php`): one temporary wallet per callback URL; a repeat gets the same wallet. */
  async createWallet(input: WalletInput): Promise<GatewayWallet> {
    return walletOf(
      await this.get('/control/wallet.php', {
        address: input.payoutAddress,
        callback: input.callbackUrl,
        ...orderTerms(input),
      }),
    );
  }

  /** Create Wallet – Affiliate (`/control/affiliate.php`): the affiliate earns the gateway's configured share. */
  async createAffiliateWallet(input: AffiliateWalletInput): Promise<GatewayWallet> {
    const split = { ...DEFAULT_AFFILIATE_SPLIT, ...definedFees(input.consent) };
    return this.affiliateWallet('/control/affiliate.php', input, split, {});
  }

  /** Create Wallet – Custom Affiliate (`/control/custom-affiliate.php`): your split and the affiliate's, chosen here. */
  async createCustomAffiliateWallet(input: CustomAffiliateWalletInput): Promise<GatewayWallet> {
    const split = { merchantFee: input.merchantFee, affiliateFee: input.affiliateFee };
    return this.affiliateWallet('/control/custom-affiliate.php', input, split, {
      affiliate_fee: input.affiliateFee,
      merchant_fee: input.merchantFee,
    });
  }

  /** Convert to USD (`/control/convert.php`): what an order in `from` comes to in USD, for a USD-only provider. */
  async convert(input: { value: string; from: string }): Promise<Conversion> {
    const answer = await this.get('/control/convert.php', { value: input.value, from: input.from });
    return { valueCoin: text(answer, 'value_coin'), exchangeRate: text(answer, 'exchange_rate') };
  }

  /** Check Payment Status (`/control/payment-status.php`): the wallet's deposits, payouts and payments. */
  async paymentStatus(ipnToken: string): Promise<PaymentStatus> {
    const answer = await this.get('/control/payment-status.php', { ipn_token: ipnToken });
    if (answer.status !== 'paid' && answer.status !== 'unpaid') throw unexpected('status');
    return answer as unknown as PaymentStatus;
  }

  /**
   * The keys the gateway serves for its callbacks now (`/.well-known/jwks.json`, newest first; two
   * while keys rotate). To set a shop up, and to see a rotation coming: compare them with the keys
   * you pinned (`unpinnedCallbackKeys`). Verify callbacks with pinned keys (`pinnedCallbackKeys`,
   * from your configuration), never with keys fetched again because a check failed: whoever runs
   * code on the gateway's API host serves this set, and could serve a key of their own.
   */
  async callbackPublicKeys(): Promise<JsonWebKey[]> {
    const answer = await this.get('/.well-known/jwks.json', {});
    const keys = answer.keys;
    if (!Array.isArray(keys) || keys.length === 0 || !keys.every((key) => key !== null && typeof key === 'object')) {
      throw unexpected('keys');
    }
    return keys as JsonWebKey[];
  }

  /** The link that sends the customer to one provider's checkout (Process Payment). */
  paymentLink(input: Omit<PaymentLinkInput, 'paymentUrl'>): string {
    return buildPaymentLink({ ...input, paymentUrl: this.paymentUrl });
  }

  /** The link to the gateway's checkout page, where the customer chooses a provider (pay.php). */
  hostedPaymentLink(input: Omit<HostedPaymentLinkInput, 'paymentUrl'>): string {
    return buildHostedPaymentLink({ ...input, paymentUrl: this.paymentUrl });
  }

  /** An affiliate endpoint's wallet: its `fees` in the query, and the owner's consent to `split` signed if asked. */
  private async affiliateWallet(
    path: string,
    input: WalletInput & { affiliateAddress: string; consent?: AffiliateConsent },
    split: { merchantFee: string; affiliateFee: string },
    fees: Record<string, string>,
  ): Promise<GatewayWallet> {
    const signature = await consentSignature(input, split, input.consent);
    return walletOf(
      await this.get(path, {
        address: input.payoutAddress,
        callback: input.callbackUrl,
        affiliate: input.affiliateAddress,
        ...orderTerms(input),
        ...fees,
        signature,
      }),
    );
  }

  private async get(path: string, parameters: Record<string, string | undefined>): Promise<Record<string, unknown>> {
    const query = Object.entries(parameters)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join('&');
    let response: Response;
    try {
      response = await this.fetch(`${this.baseUrl}${path}?${query}`, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      // AbortSignal.timeout's DOMException, not always an Error of this realm: read by name.
      throw (error as { name?: unknown } | null)?.name === 'TimeoutError'
        ? new GatewayRequestError(0, 'timeout', `the gateway did not answer ${path} within ${this.timeoutMs} ms`)
        : new GatewayRequestError(
            0,
            'network_error',
            `the gateway could not be reached: ${String((error as { message?: unknown } | null)?.message ?? error)}`,
          );
    }
    const body = await response.json().catch(() => undefined);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new GatewayRequestError(
        response.status,
        'unexpected_response',
        `${path} answered HTTP ${response.status} without a JSON object`,
      );
    }
    const answer = body as Record<string, unknown>;
    if (response.ok) return answer;
    const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
    throw new GatewayRequestError(
      response.status,
      typeof answer.code === 'string' ? answer.code : 'unexpected_response',
      typeof answer.error === 'string' ? answer.error : `${path} answered HTTP ${response.status}`,
      typeof answer.param === 'string' ? answer.param : undefined,
      Number.isFinite(retryAfter) ? retryAfter : undefined,
    );
  }
}

function hostUrl(value: string, name: string): string {
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`${name} must be an http(s) URL, got ${url.protocol}`);
  if (url.search !== '' || url.hash !== '') throw new TypeError(`${name} must be the host (and optional path) without a query or fragment`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function definedFees(consent: AffiliateWalletInput['consent']): Partial<typeof DEFAULT_AFFILIATE_SPLIT> {
  const fees: Partial<typeof DEFAULT_AFFILIATE_SPLIT> = {};
  if (consent?.merchantFee !== undefined) fees.merchantFee = consent.merchantFee;
  if (consent?.affiliateFee !== undefined) fees.affiliateFee = consent.affiliateFee;
  return fees;
}

function consentSignature(
  input: WalletInput & { affiliateAddress: string },
  split: { merchantFee: string; affiliateFee: string },
  consent: AffiliateConsent | undefined,
): Promise<string | undefined> {
  if (consent === undefined) return Promise.resolve(undefined);
  if ('signature' in consent) return Promise.resolve(consent.signature);
  return signAffiliateConsent(
    { payoutAddress: input.payoutAddress, affiliateAddress: input.affiliateAddress, callbackUrl: input.callbackUrl, ...split },
    consent.signer,
  );
}

function walletOf(answer: Record<string, unknown>): GatewayWallet {
  return {
    addressIn: text(answer, 'address_in'),
    polygonAddressIn: text(answer, 'polygon_address_in'),
    callbackUrl: text(answer, 'callback_url'),
    ipnToken: text(answer, 'ipn_token'),
  };
}

function text(answer: Record<string, unknown>, field: string): string {
  const value = answer[field];
  if (typeof value !== 'string') throw unexpected(field);
  return value;
}

function unexpected(field: string): GatewayRequestError {
  return new GatewayRequestError(200, 'unexpected_response', `the gateway's answer has no valid ${field}: is base_url the gateway's?`);
}

/** A wallet's optional order terms as Create Wallet's parameters (absent when not given). */
function orderTerms(input: WalletInput): Record<string, string | undefined> {
  return {
    order_tolerance_bps: input.orderToleranceBps?.toString(),
    customer_pays_fee: input.customerPaysFee === undefined ? undefined : input.customerPaysFee ? '1' : '0',
  };
}
