import { sleep } from '@gateway/testkit';

/**
 * For the tests of a count per minute (the limits on new wallets): a minute's window starts within
 * the test's run, waiting for the next one when fewer than 20 s are left.
 */
export async function freshMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await sleep(left + 50);
}
