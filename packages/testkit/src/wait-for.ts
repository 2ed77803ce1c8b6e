/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What a probe answers: a value when the awaited thing is there, `undefined` or `false` while it is not. */
export type Probe<T> = () => T | undefined | false | Promise<T | undefined | false>;

/**
 * Polls `probe` every `intervalMs` until it answers something other than `undefined` or `false`, and
 * gives that answer. A probe that throws has not seen it yet (a server still starting, a row not
 * there); after `timeoutMs` the error names `what` was awaited and the probe's last error.
 */
export async function waitFor<T>(what: string, probe: Probe<T>, timeoutMs = 20_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await sleep(intervalMs);
  }
}
