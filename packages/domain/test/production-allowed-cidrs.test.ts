import ipaddr from 'ipaddr.js';
import { allowedCidrProblem } from '../src/callback-address-policy';

// The ranges a production CALLBACK_ALLOWED_CIDRS may never reach, written out by hand from the rule
// (the host itself and the cloud metadata service) rather than read from the module: a range
// dropped from the module's table, or narrowed, fails here.
const NEVER_ALLOWED: readonly string[] = [
  '127.0.0.0/8', // IPv4 loopback
  '::1/128', // IPv6 loopback
  '169.254.0.0/16', // IPv4 link-local (cloud metadata at 169.254.169.254)
  'fe80::/10', // IPv6 link-local
  '0.0.0.0/8', // "this network": 0.0.0.0 reaches the host's own listeners
  '::/128', // the IPv6 unspecified address, likewise
  '::/96', // IPv4-compatible IPv6 (::7f00:1 is 127.0.0.1 to a stack that still maps it)
];

type Kind = 'ipv4' | 'ipv6';
const WIDTH: Record<Kind, number> = { ipv4: 32, ipv6: 128 };

interface Range {
  cidr: string;
  kind: Kind;
  first: bigint;
  bits: number;
}

function parse(cidr: string): Range {
  const [network, bits] = ipaddr.parseCIDR(cidr);
  const first = network.toByteArray().reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
  return { cidr, kind: network.kind(), first, bits };
}

const size = (range: Range) => 1n << BigInt(WIDTH[range.kind] - range.bits);

function addressOf(kind: Kind, value: bigint): string {
  const bytes = Array.from({ length: WIDTH[kind] / 8 }, (_, index) => Number((value >> BigInt(WIDTH[kind] - 8 * (index + 1))) & 0xffn));
  return ipaddr.fromByteArray(bytes).toString();
}

const single = (kind: Kind, value: bigint) => `${addressOf(kind, value)}/${WIDTH[kind]}`;
const refused = NEVER_ALLOWED.map(parse);
const inRefused = (kind: Kind, value: bigint) =>
  refused.some((range) => range.kind === kind && value >= range.first && value < range.first + size(range));

/** For each refused range: its first, middle and last address, a range holding it and one inside it. */
const reaching: [string, string][] = refused.flatMap((range) => {
  const last = range.first + size(range) - 1n;
  const middle = range.first + size(range) / 2n;
  const cidrs = new Set([
    range.cidr,
    single(range.kind, range.first),
    single(range.kind, middle),
    single(range.kind, last),
    `${addressOf(range.kind, range.first & ~(size(range) * 2n - 1n))}/${range.bits - 1}`,
  ]);
  if (range.bits < WIDTH[range.kind]) cidrs.add(`${addressOf(range.kind, middle)}/${range.bits + 1}`);
  // An IPv4 range spelled as IPv4-mapped IPv6 counts as the IPv4 range.
  if (range.kind === 'ipv4') cidrs.add(`::ffff:${addressOf('ipv4', middle)}/128`);
  return [...cidrs].map((cidr): [string, string] => [range.cidr, cidr]);
});

/** The addresses just outside each refused range, unless another refused range holds them. */
const beside: [string, string][] = refused.flatMap((range) =>
  [range.first - 1n, range.first + size(range)]
    .filter((value) => value >= 0n && value < 1n << BigInt(WIDTH[range.kind]) && !inRefused(range.kind, value))
    .map((value): [string, string] => [range.cidr, single(range.kind, value)]),
);

describe('CALLBACK_ALLOWED_CIDRS in production (allowedCidrProblem)', () => {
  it.each(reaching)('refuses what reaches %s: %s', (_range, cidr) => {
    expect(allowedCidrProblem(cidr, true)).toMatch(/refused in production/);
  });

  it.each(beside)('allows the neighbour of %s: %s', (_range, cidr) => {
    expect(allowedCidrProblem(cidr, true)).toBeUndefined();
  });

  it('refuses the ranges that hold everything', () => {
    for (const cidr of ['0.0.0.0/0', '::/0', '::ffff:0:0/96'])
      expect([cidr, allowedCidrProblem(cidr, true)]).toEqual([cidr, expect.stringMatching(/refused in production/)]);
  });

  it('outside production, lets any range through but still refuses what is not a range', () => {
    for (const [, cidr] of reaching) expect(allowedCidrProblem(cidr, false)).toBeUndefined();
    expect(allowedCidrProblem('fe80::1', false)).toMatch(/not a CIDR range/);
  });
});
