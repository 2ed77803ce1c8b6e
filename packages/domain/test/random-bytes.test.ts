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

  it('serves sizes above the pool share (512 bytes) straight from the CSPRNG, each in a buffer of its own', () => {
    const large = randomBytesFromPool(4096);
    expect(large.length).toBe(4096);
    expect(large.equals(Buffer.alloc(4096))).toBe(false);
    expect(randomBytesFromPool(513).buffer.byteLength).toBe(513);
    expect(randomBytesFromPool(512).buffer.byteLength).toBe(4096);
  });

  it('slices small requests from one 4 KB pool, to its last byte, before filling a new one', () => {
    jest.isolateModules(() => {
      // A fresh module: its pool starts empty.
      const { randomBytesFromPool: fromFreshPool } = jest.requireActual<typeof import('../src/random-bytes')>('../src/random-bytes');
      const slices = Array.from({ length: 9 }, () => fromFreshPool(512));
      const pool = slices[0]!.buffer;
      expect(pool.byteLength).toBe(4096);
      expect(slices.slice(0, 8).map((slice) => [slice.buffer === pool, slice.byteOffset])).toEqual(
        [0, 1, 2, 3, 4, 5, 6, 7].map((index) => [true, index * 512]),
      );
      expect(slices[8]!.buffer).not.toBe(pool);
      expect(slices[8]!.byteOffset).toBe(0);
    });
  });
});
