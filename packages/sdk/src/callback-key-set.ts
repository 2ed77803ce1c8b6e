import type { JsonWebKey } from 'node:crypto';
import {
  parseSignatureHeader,
  verifyCallbackSignature,
  type CallbackSignatureFailure,
  type VerifiedCallback,
  type VerifyCallbackSignatureInput,
} from './callback-signature';
import { pinnedCallbackKeys } from './pinned-keys';

/** At most one fetch of the served keys a minute, however many callbacks carry keys this shop has not seen. */
export const KEY_REFETCH_INTERVAL_MS = 60_000;

export interface CallbackKeySetOptions {
  /** The keys pinned in the shop's configuration (`pinnedCallbackKeys`): what the shop trusts to begin with. */
  pinned: readonly JsonWebKey[];
  /** Reads the keys the gateway serves now, e.g. `() => client.callbackPublicKeys()` (`/.well-known/jwks.json`). */
  fetchServedKeys: () => Promise<readonly JsonWebKey[]>;
  /** Milliseconds since the epoch; default `Date.now`. Tests move it instead of sleeping. */
  clock?: () => number;
}

export type CallbackKeyFailure =
  /** Signed by a key this shop does not trust, and the served keys were fetched less than a minute ago: not fetched again. */
  | 'unknown_key_refetch_limited'
  /** Signed by a key this shop does not trust, and the keys served now do not make it trusted (see the message). */
  | 'unknown_key'
  /** Signed only by a key the gateway no longer serves: retired by a rotation. */
  | 'retired_key';

export type KeySetVerifyResult =
  | (VerifiedCallback & { keyIds: string[] })
  | { ok: false; reason: CallbackSignatureFailure | CallbackKeyFailure; message: string };

interface Key {
  jwk: JsonWebKey;
  kid: string;
  material: string;
}

const MESSAGES: Record<CallbackSignatureFailure, string> = {
  malformed_header: 'x-gateway-signature is not a signature header (t=<unix seconds>,v2=<base64>…)',
  timestamp_out_of_tolerance: "the signature's time is more than the tolerance away from now (a replay, or a clock that is wrong)",
  no_matching_signature: 'no signature in the header verifies with a key this shop trusts',
  invalid_delivery_id: 'x-gateway-delivery-id is missing, repeated or not a delivery id, and v2 covers it',
  v2_required: 'the header has no v2 signature (pass allowV1 only for a gateway older than v2)',
  address_out_mismatch: 'address_out is not your payout address: the money went elsewhere',
  ipn_token_mismatch: "ipn_token is not this order's",
  amount_below_expected: 'value_forwarded_coin is below what the order must pay you',
};

/**
 * The callback keys a shop trusts, kept up with the gateway's key rotation (Operations, callback
 * signing key rotation) without trusting the served set blindly:
 *
 * - A callback whose signatures all verify with trusted keys never fetches anything.
 * - A signature no trusted key verifies (a key id this shop has not seen) fetches the served set
 *   once, and not again for a minute (KEY_REFETCH_INTERVAL_MS): a flood of forged callbacks costs the
 *   gateway one request a minute, and each is refused with `unknown_key_refetch_limited`.
 * - A served key is trusted only when it verifies a signature in a callback that a trusted key also
 *   signed: during a rotation the gateway signs with the old key and the new one, so the new key is
 *   vouched for by the old. The set is served by wallet-control, which holds no signing key; code
 *   running there could serve a key of its own, and that key never signs beside a trusted one.
 * - A trusted key that the served set no longer lists is retired: callbacks signed by it alone are
 *   refused (`retired_key`). Remove it from the pinned configuration too, as the rotation says.
 */
export class CallbackKeySet {
  private trusted: Key[];
  private readonly retired = new Map<string, Key>();
  private lastFetchAt: number | undefined;
  private fetching: Promise<Key[] | undefined> | undefined;
  private readonly clock: () => number;

  constructor(private readonly options: CallbackKeySetOptions) {
    this.trusted = pinnedCallbackKeys([...options.pinned]).map(toKey);
    this.clock = options.clock ?? Date.now;
  }

  /** The key ids trusted now, pinned and learned from a rotation. */
  get keyIds(): string[] {
    return this.trusted.map((key) => key.kid);
  }

  /** The key ids retired: trusted once, no longer served by the gateway. */
  get retiredKeyIds(): string[] {
    return [...this.retired.keys()];
  }

  /** `verifyCallbackSignature` with the keys this set trusts, learning and retiring keys as above. */
  async verify(input: Omit<VerifyCallbackSignatureInput, 'publicKeys'>): Promise<KeySetVerifyResult> {
    const result = this.check(input, this.trusted);
    const signatures = signatureCount(input);
    if (result.ok && result.keyIds.length >= signatures) return result;
    if (!result.ok && result.reason !== 'no_matching_signature') return result;
    if (!result.ok && this.check(input, [...this.retired.values()]).ok) {
      return { ok: false, reason: 'retired_key', message: 'signed only by a key the gateway no longer serves (retired by a rotation)' };
    }
    const served = await this.refetch();
    if (served === undefined) {
      if (result.ok) return result;
      return {
        ok: false,
        reason: 'unknown_key_refetch_limited',
        message: `signed by a key this shop has not seen; the gateway's keys were fetched less than ${KEY_REFETCH_INTERVAL_MS / 1000} s ago (or could not be), so not again`,
      };
    }
    if (result.ok) {
      // Vouched for: a trusted key signed this very callback, and the new key signed it too.
      const vouched = served.filter(
        (key) => !this.trusted.some((trusted) => trusted.material === key.material) && this.check(input, [key]).ok,
      );
      for (const key of vouched) this.retired.delete(key.kid);
      this.trusted.push(...vouched);
      // The keys that signed this callback are in use, whatever the served set says.
      this.retire(served, new Set(result.keyIds));
      return this.check(input, this.trusted);
    }
    this.retire(served, new Set());
    if (this.check(input, [...this.retired.values()]).ok) {
      return { ok: false, reason: 'retired_key', message: 'signed only by a key the gateway no longer serves (retired by a rotation)' };
    }
    const servedSigner = served.find((key) => this.check(input, [key]).ok);
    return {
      ok: false,
      reason: 'unknown_key',
      message:
        servedSigner === undefined
          ? 'signed by a key the gateway does not serve: not a callback of this gateway'
          : `signed by ${servedSigner.kid}, which the gateway serves but no key this shop trusts signed beside it: confirm it with the ` +
            'operator and pin it (pinnedCallbackKeys)',
    };
  }

  private check(input: Omit<VerifyCallbackSignatureInput, 'publicKeys'>, keys: readonly Key[]): KeySetVerifyResult {
    const result = verifyCallbackSignature({ ...input, publicKeys: keys.map((key) => key.jwk) });
    if (!result.ok) return { ...result, message: MESSAGES[result.reason] };
    const keyIds =
      keys.length === 1
        ? [keys[0]!.kid]
        : keys.filter((key) => verifyCallbackSignature({ ...input, publicKeys: [key.jwk] }).ok).map((key) => key.kid);
    return { ...result, keyIds };
  }

  /** The served keys, or undefined when fetched less than a minute ago or the fetch failed; one fetch for concurrent callers. */
  private refetch(): Promise<Key[] | undefined> {
    if (this.fetching) return this.fetching;
    const now = this.clock();
    if (this.lastFetchAt !== undefined && now - this.lastFetchAt < KEY_REFETCH_INTERVAL_MS) return Promise.resolve(undefined);
    this.lastFetchAt = now;
    this.fetching = this.options
      .fetchServedKeys()
      .then((keys) => pinnedCallbackKeys([...keys]).map(toKey))
      .catch(() => undefined)
      .finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private retire(served: readonly Key[], signers: ReadonlySet<string>): void {
    const servedMaterial = new Set(served.map((key) => key.material));
    const kept = (key: Key) => servedMaterial.has(key.material) || signers.has(key.kid);
    for (const key of this.trusted) if (!kept(key)) this.retired.set(key.kid, key);
    this.trusted = this.trusted.filter(kept);
  }
}

function toKey(jwk: JsonWebKey): Key {
  return { jwk, kid: jwk.kid as string, material: JSON.stringify([jwk.kty, jwk.crv, jwk.x]) };
}

/** How many signatures the scheme that is checked carries (v2 when any, else v1): one per signing key. */
function signatureCount({ header, allowV1 }: Pick<VerifyCallbackSignatureInput, 'header' | 'allowV1'>): number {
  const parsed = parseSignatureHeader(header);
  if (parsed === undefined) return 0;
  return parsed.v2.length > 0 ? parsed.v2.length : allowV1 ? parsed.v1.length : 0;
}
