<?php
/*
 * Verifying the gateway's merchant callbacks in PHP (7.4 or later; the sodium extension PHP has
 * bundled since 7.2). The same checks, in the same order, as the merchant SDK's
 * verifyCallbackOrder and verifyCallbackSignature (packages/sdk): see docs/api.md, "Merchant
 * callback", and this folder's README. Tested in CI against callbacks the callback-worker signed.
 *
 * Each function answers ['ok' => true, ...] or ['ok' => false, 'reason' => '<the SDK's reason>'];
 * it throws only for a configuration error (a key or an address that is not one).
 */

declare(strict_types=1);

const GATEWAY_CALLBACK_TOLERANCE_SECONDS = 300;
const GATEWAY_ORDER_STATES = ['awaiting', 'paid', 'underpaid', 'overpaid', 'late'];

/**
 * A callback's signature, time, payout address and ipn_token, and (unless $expectedAmount is
 * false) that your share, value_forwarded_coin, is at least $expectedAmount (a USDC decimal string).
 *
 * $url: the full URL as received (your public origin, then the path and query exactly as they
 *   arrived, e.g. 'https://shop.example' . $_SERVER['REQUEST_URI']), never rebuilt from $_GET.
 * $signatureHeader, $deliveryId: $_SERVER['HTTP_X_GATEWAY_SIGNATURE'], $_SERVER['HTTP_X_GATEWAY_DELIVERY_ID'].
 * $publicKeys: the gateway's keys as pinned from {base_url}/.well-known/jwks.json (each an array
 *   with 'kty' => 'OKP', 'crv' => 'Ed25519', 'x' => base64url), never fetched because a check failed.
 * $payoutAddress: the payout address the wallet was registered with.
 * $ipnToken: the ipn_token Create Wallet answered for this order, or null.
 */
function gateway_verify_callback(
    string $url,
    ?string $signatureHeader,
    ?string $deliveryId,
    array $publicKeys,
    string $payoutAddress,
    ?string $ipnToken,
    $expectedAmount,
    ?int $now = null
): array {
    if (!preg_match('/^0x[0-9a-fA-F]{40}$/D', $payoutAddress)) {
        throw new InvalidArgumentException('payoutAddress must be your payout address: 0x and 40 hexadecimal characters');
    }
    $expected = $expectedAmount === false ? null : gateway_usdc_base_units($expectedAmount);
    if ($expectedAmount !== false && $expected === null) {
        throw new InvalidArgumentException("expectedAmount must be a USDC decimal string such as '24.75', or false");
    }
    $keys = array_map('gateway_ed25519_key', $publicKeys);

    $header = gateway_parse_signature_header($signatureHeader);
    if ($header === null) {
        return ['ok' => false, 'reason' => 'malformed_header'];
    }
    if (abs(($now ?? time()) - $header['t']) > GATEWAY_CALLBACK_TOLERANCE_SECONDS) {
        return ['ok' => false, 'reason' => 'timestamp_out_of_tolerance'];
    }
    // v1 covers no delivery id (a replay under a fresh id would pass): a header without v2 is refused.
    if (count($header['v2']) === 0) {
        return ['ok' => false, 'reason' => 'v2_required'];
    }
    if ($deliveryId === null || !preg_match('/^[A-Za-z0-9_-]{1,128}$/D', $deliveryId)) {
        return ['ok' => false, 'reason' => 'invalid_delivery_id'];
    }
    $signed = $header['t'] . '.' . $deliveryId . '.' . $url;
    $matched = false;
    // Every pair is checked, so the time taken does not say which key matched.
    foreach ($header['v2'] as $signature) {
        foreach ($keys as $key) {
            $matched = sodium_crypto_sign_verify_detached($signature, $signed, $key) || $matched;
        }
    }
    if (!$matched) {
        return ['ok' => false, 'reason' => 'no_matching_signature'];
    }

    // The URL is signed as sent: the gateway's parameters in it are the ones the gateway wrote.
    $addressOut = gateway_query_values($url, 'address_out');
    if (count($addressOut) !== 1 || strtolower($addressOut[0]) !== strtolower($payoutAddress)) {
        return ['ok' => false, 'reason' => 'address_out_mismatch'];
    }
    if ($ipnToken !== null) {
        $token = gateway_query_values($url, 'ipn_token');
        if (count($token) !== 1 || !hash_equals($ipnToken, $token[0])) {
            return ['ok' => false, 'reason' => 'ipn_token_mismatch'];
        }
    }
    $forwarded = gateway_query_values($url, 'value_forwarded_coin');
    $forwardedUnits = count($forwarded) === 1 ? gateway_usdc_base_units($forwarded[0]) : null;
    if ($expected !== null && ($forwardedUnits === null || strcmp($forwardedUnits, $expected) < 0)) {
        return ['ok' => false, 'reason' => 'amount_below_expected'];
    }
    return ['ok' => true, 'timestamp' => $header['t'], 'delivery_id' => $deliveryId, 'address_out' => $addressOut[0]];
}

/**
 * The order-level check: gateway_verify_callback (without the amount), then what the callback says
 * of the whole order (a wallet is one order; an order paid in two transfers is paid when the
 * second one's callback says so). $minimumExpected: the least USDC the order may be expected to
 * bring (your price less the largest on-ramp fee you accept), or false. Treat 'paid' => true as
 * paid; on 'no_order_figures' check the deposit with gateway_verify_callback and $expectedAmount.
 */
function gateway_verify_callback_order(
    string $url,
    ?string $signatureHeader,
    ?string $deliveryId,
    array $publicKeys,
    string $payoutAddress,
    string $ipnToken,
    $minimumExpected,
    ?int $now = null
): array {
    if ($ipnToken === '') {
        throw new InvalidArgumentException("ipnToken must be the ipn_token Create Wallet answered for this order's wallet");
    }
    $minimum = $minimumExpected === false ? null : gateway_usdc_base_units($minimumExpected);
    if ($minimumExpected !== false && $minimum === null) {
        throw new InvalidArgumentException("minimumExpected must be a USDC decimal string such as '18.6165', or false");
    }
    $verified = gateway_verify_callback($url, $signatureHeader, $deliveryId, $publicKeys, $payoutAddress, $ipnToken, false, $now);
    if (!$verified['ok']) {
        return $verified;
    }
    $figures = [];
    foreach (['order_state', 'order_total_coin', 'order_expected_coin'] as $name) {
        $values = gateway_query_values($url, $name);
        $figures[$name] = count($values) === 1 ? $values[0] : null;
    }
    $total = gateway_usdc_base_units($figures['order_total_coin']);
    $expected = gateway_usdc_base_units($figures['order_expected_coin']);
    if (!in_array($figures['order_state'], GATEWAY_ORDER_STATES, true) || $total === null || $expected === null) {
        return ['ok' => false, 'reason' => 'no_order_figures'];
    }
    if ($minimum !== null && strcmp($expected, $minimum) < 0) {
        return ['ok' => false, 'reason' => 'expectation_below_minimum'];
    }
    $state = $figures['order_state'];
    return $verified + [
        'state' => $state,
        'paid' => $state === 'paid' || $state === 'overpaid',
        'total' => $figures['order_total_coin'],
        'expected' => $figures['order_expected_coin'],
    ];
}

/**
 * A USDC decimal string (at most 6 decimals) as its base units, written as 21 digits so that two
 * compare exactly with strcmp (PHP's integers would overflow on the largest amounts); null when it
 * is not one.
 */
function gateway_usdc_base_units($amount): ?string
{
    if (!is_string($amount) || !preg_match('/^(\d{1,15})(?:\.(\d{1,6}))?$/D', $amount, $parts)) {
        return null;
    }
    return str_pad($parts[1] . str_pad($parts[2] ?? '', 6, '0'), 21, '0', STR_PAD_LEFT);
}

/** `t=<unix seconds>,v1=<base64>,v2=<base64>[,…]` as ['t' => int, 'v1' => [bytes…], 'v2' => [bytes…]]; null when malformed. */
function gateway_parse_signature_header(?string $header): ?array
{
    if ($header === null) {
        return null;
    }
    $parsed = ['t' => null, 'v1' => [], 'v2' => []];
    foreach (explode(',', $header) as $part) {
        $pair = explode('=', $part, 2);
        if (count($pair) !== 2) {
            return null;
        }
        [$name, $value] = [trim($pair[0]), trim($pair[1])];
        if ($name === 't') {
            if ($parsed['t'] !== null || !preg_match('/^(0|[1-9]\d{0,14})$/D', $value)) {
                return null;
            }
            $parsed['t'] = (int) $value;
        } elseif ($name === 'v1' || $name === 'v2') {
            $bytes = base64_decode($value, true);
            // Canonical base64 of 64 bytes only: what re-encodes to itself.
            if ($bytes === false || strlen($bytes) !== SODIUM_CRYPTO_SIGN_BYTES || base64_encode($bytes) !== $value) {
                return null;
            }
            $parsed[$name][] = $bytes;
        }
        // Other names are skipped: a future scheme may be sent beside these.
    }
    if ($parsed['t'] === null || count($parsed['v1']) + count($parsed['v2']) === 0) {
        return null;
    }
    // The gateway sends one of each per signing key (two during a rotation).
    if (count($parsed['v1']) > 8 || count($parsed['v2']) > 8) {
        return null;
    }
    return $parsed;
}

/** The values of a query parameter, decoded as a browser's URLSearchParams decodes them ('+' is a space). */
function gateway_query_values(string $url, string $name): array
{
    $query = parse_url($url, PHP_URL_QUERY);
    if (!is_string($query) || $query === '') {
        return [];
    }
    $values = [];
    foreach (explode('&', $query) as $pair) {
        $parts = explode('=', $pair, 2);
        if (urldecode($parts[0]) === $name) {
            $values[] = urldecode($parts[1] ?? '');
        }
    }
    return $values;
}

/** A pinned JWK's raw 32-byte Ed25519 public key. */
function gateway_ed25519_key(array $jwk): string
{
    $x = $jwk['x'] ?? null;
    $key = is_string($x) ? base64_decode(strtr($x, '-_', '+/'), true) : false;
    if (($jwk['kty'] ?? null) !== 'OKP' || ($jwk['crv'] ?? null) !== 'Ed25519' || $key === false || strlen($key) !== SODIUM_CRYPTO_SIGN_PUBLICKEYBYTES) {
        throw new InvalidArgumentException('each public key must be an Ed25519 JWK from the gateway\'s /.well-known/jwks.json');
    }
    return $key;
}
