/**
 * Test hook for the exactly-once guarantee: with SETTLEMENT_CRASH_AT set (refused in production),
 * the process SIGKILLs itself the first time it reaches that point, with no chance to clean up,
 * as a power cut or an OOM kill would. The next process must then finish the payout without
 * paying twice.
 *
 *  before-sign       legs planned (deposit forwarding), nothing signed
 *  before-broadcast  a relayer transaction recorded, not yet sent
 *  after-broadcast   a relayer transaction sent, the send not yet noted
 *  before-receipt    transactions sent, their outcome not yet looked at
 * The two broadcast points are the RelayerOutbox's, so they also stop the replan command while it
 * sends a cancellation: run again, it must send the recorded one, never a second.
 */
export const CRASH_POINTS = ['before-sign', 'before-broadcast', 'after-broadcast', 'before-receipt'] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

export type CrashHook = (point: CrashPoint) => void;

const noCrashes: CrashHook = () => undefined;

function crashAt(target: CrashPoint): CrashHook {
  return (point) => {
    if (point === target) process.kill(process.pid, 'SIGKILL');
  };
}

/** The hook of SETTLEMENT_CRASH_AT: a crash there, or none. */
export function crashHookFor(target: CrashPoint | undefined): CrashHook {
  return target ? crashAt(target) : noCrashes;
}
