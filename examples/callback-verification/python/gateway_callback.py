"""Verifying the gateway's merchant callbacks in Python (3.8 or later, with the `cryptography`
package: Debian's python3-cryptography, or `pip install cryptography`).

The same checks, in the same order, as the merchant SDK's verifyCallbackOrder and
verifyCallbackSignature (packages/sdk): see docs/api.md, "Merchant callback", and this folder's
README. Tested in CI against callbacks the callback-worker signed.

Each function answers {"ok": True, ...} or {"ok": False, "reason": "<the SDK's reason>"}; it raises
ValueError only for a configuration error (a key or an address that is not one).
"""

import base64
import binascii
import hmac
import re
import time
from urllib.parse import unquote_plus, urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

TOLERANCE_SECONDS = 300
ORDER_STATES = ("awaiting", "paid", "underpaid", "overpaid", "late")

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_USDC = re.compile(r"(\d{1,15})(?:\.(\d{1,6}))?")
_UNIX_SECONDS = re.compile(r"0|[1-9]\d{0,14}")
_DELIVERY_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
_SIGNATURE_BYTES = 64
# The gateway sends one v1 and one v2 per signing key (two of each during a rotation).
_MAX_SIGNATURES = 8


def verify_callback(url, signature_header, delivery_id, public_keys, payout_address, ipn_token, expected_amount, now=None):
    """A callback's signature, time, payout address and ipn_token, and (unless expected_amount is
    False) that your share, value_forwarded_coin, is at least expected_amount (a USDC decimal string).

    url: the full URL as received (your public origin, then the path and query exactly as they
      arrived, e.g. request.url in Flask), never rebuilt from parsed parameters.
    signature_header, delivery_id: the X-Gateway-Signature and X-Gateway-Delivery-Id headers.
    public_keys: the gateway's keys as pinned from {base_url}/.well-known/jwks.json (each a dict
      with kty OKP, crv Ed25519 and x in base64url), never fetched because a check failed.
    payout_address: the payout address the wallet was registered with.
    ipn_token: the ipn_token Create Wallet answered for this order, or None.
    """
    if not isinstance(payout_address, str) or not _ADDRESS.fullmatch(payout_address):
        raise ValueError("payout_address must be your payout address: 0x and 40 hexadecimal characters")
    expected = None if expected_amount is False else usdc_base_units(expected_amount)
    if expected_amount is not False and expected is None:
        raise ValueError("expected_amount must be a USDC decimal string such as '24.75', or False")
    keys = [_ed25519_key(jwk) for jwk in public_keys]

    header = parse_signature_header(signature_header)
    if header is None:
        return {"ok": False, "reason": "malformed_header"}
    if abs((time.time() if now is None else now) - header["t"]) > TOLERANCE_SECONDS:
        return {"ok": False, "reason": "timestamp_out_of_tolerance"}
    # v1 covers no delivery id (a replay under a fresh id would pass): a header without v2 is refused.
    if not header["v2"]:
        return {"ok": False, "reason": "v2_required"}
    if not isinstance(delivery_id, str) or not _DELIVERY_ID.fullmatch(delivery_id):
        return {"ok": False, "reason": "invalid_delivery_id"}
    signed = f"{header['t']}.{delivery_id}.{url}".encode("utf-8")
    matched = False
    # Every pair is checked, so the time taken does not say which key matched.
    for signature in header["v2"]:
        for key in keys:
            matched = _verifies(key, signature, signed) or matched
    if not matched:
        return {"ok": False, "reason": "no_matching_signature"}

    # The URL is signed as sent: the gateway's parameters in it are the ones the gateway wrote.
    address_out = query_values(url, "address_out")
    if len(address_out) != 1 or address_out[0].lower() != payout_address.lower():
        return {"ok": False, "reason": "address_out_mismatch"}
    if ipn_token is not None:
        token = query_values(url, "ipn_token")
        if len(token) != 1 or not hmac.compare_digest(token[0].encode("utf-8"), ipn_token.encode("utf-8")):
            return {"ok": False, "reason": "ipn_token_mismatch"}
    forwarded = query_values(url, "value_forwarded_coin")
    forwarded_units = usdc_base_units(forwarded[0]) if len(forwarded) == 1 else None
    if expected is not None and (forwarded_units is None or forwarded_units < expected):
        return {"ok": False, "reason": "amount_below_expected"}
    return {"ok": True, "timestamp": header["t"], "delivery_id": delivery_id, "address_out": address_out[0]}


def verify_callback_order(url, signature_header, delivery_id, public_keys, payout_address, ipn_token, minimum_expected, now=None):
    """The order-level check: verify_callback (without the amount), then what the callback says of
    the whole order (a wallet is one order; an order paid in two transfers is paid when the second
    one's callback says so). minimum_expected: the least USDC the order may be expected to bring
    (your price less the largest on-ramp fee you accept), or False. Treat "paid": True as paid; on
    no_order_figures check the deposit with verify_callback and expected_amount.
    """
    if not isinstance(ipn_token, str) or ipn_token == "":
        raise ValueError("ipn_token must be the ipn_token Create Wallet answered for this order's wallet")
    minimum = None if minimum_expected is False else usdc_base_units(minimum_expected)
    if minimum_expected is not False and minimum is None:
        raise ValueError("minimum_expected must be a USDC decimal string such as '18.6165', or False")
    verified = verify_callback(url, signature_header, delivery_id, public_keys, payout_address, ipn_token, False, now)
    if not verified["ok"]:
        return verified
    figures = {}
    for name in ("order_state", "order_total_coin", "order_expected_coin"):
        values = query_values(url, name)
        figures[name] = values[0] if len(values) == 1 else None
    total = usdc_base_units(figures["order_total_coin"])
    expected = usdc_base_units(figures["order_expected_coin"])
    if figures["order_state"] not in ORDER_STATES or total is None or expected is None:
        return {"ok": False, "reason": "no_order_figures"}
    if minimum is not None and expected < minimum:
        return {"ok": False, "reason": "expectation_below_minimum"}
    state = figures["order_state"]
    return {
        **verified,
        "state": state,
        "paid": state in ("paid", "overpaid"),
        "total": figures["order_total_coin"],
        "expected": figures["order_expected_coin"],
    }


def usdc_base_units(amount):
    """A USDC decimal string (at most 6 decimals) as its base units, exactly; None when it is not one."""
    if not isinstance(amount, str):
        return None
    match = _USDC.fullmatch(amount)
    if match is None:
        return None
    return int(match.group(1)) * 1_000_000 + int((match.group(2) or "").ljust(6, "0"))


def parse_signature_header(header):
    """`t=<unix seconds>,v1=<base64>,v2=<base64>[,...]` as {"t": int, "v1": [bytes], "v2": [bytes]}; None when malformed."""
    if not isinstance(header, str):
        return None
    parsed = {"t": None, "v1": [], "v2": []}
    for part in header.split(","):
        if "=" not in part:
            return None
        name, value = (text.strip() for text in part.split("=", 1))
        if name == "t":
            if parsed["t"] is not None or not _UNIX_SECONDS.fullmatch(value):
                return None
            parsed["t"] = int(value)
        elif name in ("v1", "v2"):
            try:
                signature = base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                return None
            # Canonical base64 of 64 bytes only: what re-encodes to itself.
            if len(signature) != _SIGNATURE_BYTES or base64.b64encode(signature).decode("ascii") != value:
                return None
            parsed[name].append(signature)
        # Other names are skipped: a future scheme may be sent beside these.
    if parsed["t"] is None or not (parsed["v1"] or parsed["v2"]):
        return None
    if len(parsed["v1"]) > _MAX_SIGNATURES or len(parsed["v2"]) > _MAX_SIGNATURES:
        return None
    return parsed


def query_values(url, name):
    """The values of a query parameter, decoded as a browser's URLSearchParams decodes them ("+" is a space)."""
    query = urlsplit(url).query
    values = []
    for pair in query.split("&") if query else []:
        key, _, value = pair.partition("=")
        if unquote_plus(key) == name:
            values.append(unquote_plus(value))
    return values


def _ed25519_key(jwk):
    x = jwk.get("x") if isinstance(jwk, dict) else None
    if not isinstance(jwk, dict) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519" or not isinstance(x, str):
        raise ValueError("each public key must be an Ed25519 JWK from the gateway's /.well-known/jwks.json")
    try:
        return Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(x + "=" * (-len(x) % 4)))
    except (binascii.Error, ValueError) as error:
        raise ValueError("each public key must be an Ed25519 JWK from the gateway's /.well-known/jwks.json") from error


def _verifies(key, signature, signed):
    try:
        key.verify(signature, signed)
        return True
    except InvalidSignature:
        return False
