import { mnemonicToAccount } from 'viem/accounts';
import { bytesToHex, checksumAddress, keccak256 } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { secp256k1 } from '@noble/curves/secp256k1';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { derivePublicChild, ethereumAddress, fingerprintFromMnemonic, TemporaryAddressDeriver, xpubFromMnemonic } from '../src/hd-wallet';
import { keccakBackend, type secp256k1Backend } from '../src/crypto-backends';

const mnemonic = 'test test test test test test test test test test test junk';

// BIP-32's published test vectors: the non-hardened steps, each from an xpub to its child's xpub.
const BIP32_PUBLIC_STEPS: [parent: string, index: bigint, child: string][] = [
  // Test vector 1: m/0H → m/0H/1, m/0H/1/2H → …/2, m/0H/1/2H/2 → …/1000000000
  [
    'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw',
    1n,
    'xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ',
  ],
  [
    'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5',
    2n,
    'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
  ],
  [
    'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
    1_000_000_000n,
    'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy',
  ],
  // Test vector 2: m → m/0, m/0/2147483647H → …/1, m/0/2147483647H/1/2147483646H → …/2
  [
    'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB',
    0n,
    'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH',
  ],
  [
    'xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDMBU4Zn9h8LZNnBC5y4a',
    1n,
    'xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537wTfunKau47EL2dhHKon',
  ],
  [
    'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL',
    2n,
    'xpub6FnCn6nSzZAw5Tw7cgR9bi15UV96gLZhjDstkXXxvCLsUXBGXPdSnLFbdpq8p9HmGsApME5hQTZ3emM2rnY5agb9rXpVGyy3bdW6EEgAtqt',
  ],
];

/** The reference: @scure/bip32's pure-JS derivation, as the gateway derived addresses before. */
function referenceAddress(xpub: string, index: number): string {
  const child = HDKey.fromExtendedKey(xpub).deriveChild(index);
  return publicKeyToAddress(bytesToHex(secp256k1.ProjectivePoint.fromHex(child.publicKey!).toRawBytes(false)));
}

describe('TemporaryAddressDeriver', () => {
  const xpub = xpubFromMnemonic(mnemonic);
  const deriver = new TemporaryAddressDeriver(xpub);

  it('derives with libsecp256k1 and native Keccak (the bindings load here)', () => {
    expect(deriver.backends).toEqual({ secp256k1: 'native', keccak: 'native' });
  });

  it('spells addresses as viem does (EIP-55), with native Keccak and with the JS fallback', () => {
    const javascript = { name: 'javascript' as const, keccak256: (data: Uint8Array) => keccak256(data, 'bytes') };
    for (const index of [0, 1, 2, 3, 99, 1000]) {
      const point = deriver.childPublicKey(BigInt(index), false);
      const expected = checksumAddress(bytesToHex(keccak256(point.subarray(1), 'bytes').subarray(12)));
      expect(ethereumAddress(point, keccakBackend())).toBe(expected);
      expect(ethereumAddress(point, javascript)).toBe(expected);
    }
  });

  it('hashes as viem does with its native sponge reused, around each block boundary and call after call', () => {
    const native = keccakBackend();
    for (const length of [0, 1, 31, 64, 135, 136, 137, 271, 272, 1000]) {
      const data = Uint8Array.from({ length }, (_, i) => (i * 31 + length) % 256);
      for (let call = 0; call < 2; call += 1) expect(bytesToHex(native.keccak256(data))).toBe(keccak256(data));
    }
    // A view into a larger buffer hashes its own bytes only.
    const larger = Uint8Array.from({ length: 100 }, (_, i) => i);
    expect(bytesToHex(native.keccak256(larger.subarray(10, 74)))).toBe(keccak256(larger.slice(10, 74)));
  });

  it('follows the published BIP-32 test vectors, natively and with the JS fallback', () => {
    const fallback = { name: 'elliptic' as const, ...(require('secp256k1/elliptic') as Omit<ReturnType<typeof secp256k1Backend>, 'name'>) };
    for (const [parentXpub, index, childXpub] of BIP32_PUBLIC_STEPS) {
      const parent = HDKey.fromExtendedKey(parentXpub);
      const expected = bytesToHex(HDKey.fromExtendedKey(childXpub).publicKey!);
      expect(bytesToHex(derivePublicChild(parent.publicKey!, parent.chainCode!, index, true))).toBe(expected);
      expect(bytesToHex(derivePublicChild(parent.publicKey!, parent.chainCode!, index, true, fallback))).toBe(expected);
    }
  });

  it('gives the same addresses as the BIP-32 reference for indices 0…1,000', () => {
    for (let index = 0; index <= 1000; index += 1) {
      expect(deriver.addressAt(BigInt(index))).toBe(referenceAddress(xpub, index));
    }
  });

  it('derives from the xpub the same addresses the seed signs for', () => {
    for (const index of [0, 1, 7, 1000]) {
      expect(deriver.addressAt(BigInt(index))).toBe(mnemonicToAccount(mnemonic, { addressIndex: index }).address);
    }
    expect(deriver.addressAt(0n)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it('names the key it derives from: the same fingerprint from the xpub and from the seed', () => {
    expect(deriver.fingerprint).toMatch(/^[0-9a-f]{8}$/);
    expect(fingerprintFromMnemonic(mnemonic)).toBe(deriver.fingerprint);
    const other = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
    expect(new TemporaryAddressDeriver(xpubFromMnemonic(other)).fingerprint).not.toBe(deriver.fingerprint);
  });

  it('refuses an xpub of the wrong depth and indexes outside the range', () => {
    const master = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).publicExtendedKey;
    expect(() => new TemporaryAddressDeriver(master)).toThrow(/depth 4/);
    expect(() => deriver.addressAt(2n ** 31n)).toThrow(/range/);
    expect(() => deriver.addressAt(-1n)).toThrow(/range/);
  });
});
