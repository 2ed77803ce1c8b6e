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
  describe('refuses every body but the exact sealed length', () => {
    // The sealed layout, written out: a 12-byte IV, the 20 address bytes, a full 16-byte GCM tag.
    const IV_BYTES = 12;
    const ADDRESS_BYTES = 20;
    const TAG_BYTES = 16;
    const ring = createSealingKeyRing([k1]);
    const token = sealAddressIn(address, ring);
    const body = token.slice('k1.'.length);
    const raw = Buffer.from(body, 'base64url');

    it('seals exactly IV, address and a full tag', () => {
      expect(raw).toHaveLength(IV_BYTES + ADDRESS_BYTES + TAG_BYTES);
      expect(body).toHaveLength(Math.ceil((raw.length * 4) / 3));
    });

    // Node accepts GCM tags of 4 to 15 bytes, and a genuine tag cut short still verifies: without
    // the exact-length check a 4-byte tag would be a forgery at 1 in 2^32.
    it.each(Array.from({ length: TAG_BYTES - 4 }, (_, index) => 4 + index))('a genuine token with its tag cut to %i bytes', (tagBytes) => {
      const shortened = raw.subarray(0, IV_BYTES + ADDRESS_BYTES + tagBytes).toString('base64url');
      expect(openAddressIn(`k1.${shortened}`, ring)).toBeUndefined();
    });

    // Node's base64url decoder skips characters outside the alphabet: a genuine body one character
    // short, padded back to length with such a character, would decode to a 15-byte tag.
    it('a genuine body one character short, padded with a character outside the alphabet', () => {
      for (const padded of [
        `${body.slice(0, -1)}!`,
        `!${body.slice(0, -1)}`,
        `${body.slice(0, -1)}=`,
        `${body.slice(0, 31)}.${body.slice(31, -1)}`,
      ]) {
        expect([padded, openAddressIn(`k1.${padded}`, ring)]).toEqual([padded, undefined]);
      }
    });

    it('every body length from 0 to 4 characters past the sealed one', () => {
      const opened: number[] = [];
      for (let length = 0; length <= body.length + 4; length += 1) {
        // Cut short, or padded with characters of the token's own alphabet.
        const candidate = length <= body.length ? body.slice(0, length) : body + 'A'.repeat(length - body.length);
        if (openAddressIn(`k1.${candidate}`, ring) !== undefined) opened.push(length);
      }
      expect(opened).toEqual([body.length]);
    });
  });

  it('refuses keys of the wrong size', () => {
    expect(() => createSealingKeyRing([{ id: 'k1', key: randomBytes(16) }])).toThrow(/32 bytes/);
    expect(() => createSealingKeyRing([])).toThrow('at least one address_in sealing key is required');
  });

  it('takes key ids of 1 to 16 characters of A-Z a-z 0-9 _ -, and nothing around them', () => {
    for (const id of ['k', 'K-1_z', 'a'.repeat(16)]) {
      const ring = createSealingKeyRing([{ id, key: randomBytes(32) }]);
      expect(openAddressIn(sealAddressIn(address, ring), ring)).toBe(address.toLowerCase());
    }
    for (const id of ['', 'a'.repeat(17), 'k1!', '!k1', 'k 1', 'k.1']) {
      expect(() => createSealingKeyRing([{ id, key: randomBytes(32) }])).toThrow(
        `sealing key id "${id}" must be 1-16 characters of A-Z a-z 0-9 _ -`,
      );
    }
  });

  it('refuses a token that starts with its "."', () => {
    const ring = createSealingKeyRing([k1]);
    expect(openAddressIn(`.${sealAddressIn(address, ring).slice(3)}`, ring)).toBeUndefined();
  });
});
