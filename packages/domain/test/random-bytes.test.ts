import { randomBytesFromPool } from '../src/random-bytes';

describe('randomBytesFromPool', () => {
  it('hands out each byte once, across refills, and never changes a slice it handed out', () => {
    const slices = Array.from({ length: 1000 }, () => randomBytesFromPool(24));
    const copies = slices.map((slice) => Buffer.from(slice));
    expect(slices.every((slice) => slice.length === 24)).toBe(true);
    // 24,000 bytes: several refills of the 4 KB pool.
    expect(new Set(slices.map((slice) => slice.toString('hex'))).size).toBe(1000);
    for (const [index, slice] of slices.entries()) expect(slice.equals(copies[index] as Buffer)).toBe(true);
  });

  it('serves sizes above the pool share straight from the CSPRNG', () => {
    const large = randomBytesFromPool(4096);
    expect(large.length).toBe(4096);
    expect(large.equals(Buffer.alloc(4096))).toBe(false);
  });
});
