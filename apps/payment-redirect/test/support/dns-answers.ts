import dns from 'node:dns';

// Preloaded (--require) into a payment-redirect started as the image runs it: the tests have no
// internet, so the names TEST_DNS_ANSWERS gives resolve to the addresses it gives, as a public DNS
// would answer for them; every other name goes to the machine's resolver.
const answers = JSON.parse(process.env.TEST_DNS_ANSWERS ?? '{}') as Record<string, string[]>;
const machineLookup = dns.promises.lookup.bind(dns.promises) as (
  host: string,
  options: dns.LookupAllOptions,
) => Promise<dns.LookupAddress[]>;

async function lookup(host: string, options: dns.LookupAllOptions): Promise<dns.LookupAddress[]> {
  const addresses = answers[host];
  if (addresses === undefined) return machineLookup(host, options);
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

dns.promises.lookup = lookup as unknown as typeof dns.promises.lookup;
