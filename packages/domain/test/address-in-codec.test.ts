import { randomBytes } from 'node:crypto';
import { createSealingKeyRing, openAddressIn, sealAddressIn } from '../src/address-in-codec';

const address = '0x52908400098527886E0F7030069857D2E4169EE7' as const;
const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };

describe('address_in codec', () => {
  it('seals URL-safely and opens with the same key', () => {
    const ring = createSealingKeyRing([k1]);
    const token = sealAddressIn(address, ring);
    expect(token).toMatch(/^k1\.[A-Za-z0-9_-]+$/);
    expect(encodeURIComponent(token)).toBe(token);
    expect(openAddressIn(token, ring)).toBe(address.toLowerCase());
  });
  it('does not reveal the address and differs each time it is sealed', () => {
    const ring = createSealingKeyRing([k1]);
    const a = sealAddressIn(address, ring);
    expect(a.toLowerCase()).not.toContain(address.slice(2).toLowerCase());
    expect(sealAddressIn(address, ring)).not.toBe(a);
  });
  it('opens tokens sealed with an older key after rotation', () => {
    const old = sealAddressIn(address, createSealingKeyRing([k1]));
    const rotated = createSealingKeyRing([k2, k1]);
    expect(openAddressIn(old, rotated)).toBe(address.toLowerCase());
    expect(sealAddressIn(address, rotated)).toMatch(/^k2\./);
  });
  it('refuses altered, forged, foreign and malformed tokens', () => {
    const ring = createSealingKeyRing([k1]);
    const token = sealAddressIn(address, ring);
    const body = token.slice(3);
    const flipped = `k1.${body.slice(0, 10)}${body[10] === 'A' ? 'B' : 'A'}${body.slice(11)}`;
    expect(openAddressIn(flipped, ring)).toBeUndefined();
    expect(openAddressIn(sealAddressIn(address, createSealingKeyRing([{ id: 'k1', key: randomBytes(32) }])), ring)).toBeUndefined();
    expect(openAddressIn(`k9.${body}`, ring)).toBeUndefined();
    for (const junk of ['', '.', 'k1.', address, 'k1.!!!', `k1.${body}x`]) expect(openAddressIn(junk, ring)).toBeUndefined();
  });
  it('refuses keys of the wrong size', () => {
    expect(() => createSealingKeyRing([{ id: 'k1', key: randomBytes(16) }])).toThrow(/32 bytes/);
    expect(() => createSealingKeyRing([])).toThrow();
  });
});
