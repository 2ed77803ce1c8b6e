// What every state machine of the gateway is made of (the settlement machines, the payment's): a
// file of its own, so a machine can be written beside the others without importing them.

/** A move between statuses: what it starts from, where it ends, and what the caller must hold for it. */
export interface StatusMove<S extends string> {
  readonly from: readonly S[];
  readonly to: S;
  readonly requires: string;
}

/** True when `moves` has a move from `from` to `to`. */
export function canMove<S extends string>(moves: Readonly<Record<string, StatusMove<S>>>, from: S, to: S): boolean {
  return Object.values(moves).some((move) => move.to === to && move.from.includes(from));
}
