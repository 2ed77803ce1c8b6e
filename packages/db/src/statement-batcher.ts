export interface BatcherOptions {
  maxBatchSize: number;
  /** Batches running at once; items arriving meanwhile wait and leave together in the next one. */
  maxInFlight: number;
  /** How long a batch that is not full waits for more items before it leaves. */
  lingerMs: number;
}

/**
 * Turns many concurrent single-item calls into few multi-item calls. Fifty jobs in flight each
 * claiming or recording one delivery become a few statements instead of fifty: a statement costs
 * PostgreSQL about 0.4 ms of CPU here whether it touches one row or twenty-five (then ~0.05 ms a
 * row). A batch leaves when it is full, when `lingerMs` has passed since its first item, or, while
 * `maxInFlight` batches run, as soon as one of them returns (it then holds what queued meanwhile).
 *
 * `run` gets the items of a batch and returns one result per item, in the same order. When it
 * throws, every item of that batch fails with the error.
 */
export function createBatcher<I, O>(run: (items: I[]) => Promise<O[]>, options: BatcherOptions): (item: I) => Promise<O> {
  const queued: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }> = [];
  let inFlight = 0;
  let flushScheduled = false;
  let lingerTimer: NodeJS.Timeout | undefined;

  const flush = (): void => {
    flushScheduled = false;
    clearTimeout(lingerTimer);
    while (inFlight < options.maxInFlight && queued.length > 0) {
      const batch = queued.splice(0, options.maxBatchSize);
      inFlight += 1;
      run(batch.map((entry) => entry.item))
        .then(
          (results) => {
            if (results.length !== batch.length) throw new Error(`batch of ${batch.length} returned ${results.length} results`);
            batch.forEach((entry, index) => entry.resolve(results[index] as O));
          },
        )
        .catch((error: unknown) => batch.forEach((entry) => entry.reject(error)))
        .finally(() => {
          inFlight -= 1;
          flush();
        });
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queued.push({ item, resolve, reject });
      if (queued.length >= options.maxBatchSize && inFlight < options.maxInFlight) {
        flush();
      } else if (!flushScheduled && inFlight < options.maxInFlight) {
        flushScheduled = true;
        lingerTimer = setTimeout(flush, options.lingerMs);
      }
    });
}
