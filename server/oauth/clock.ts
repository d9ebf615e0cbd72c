/**
 * The account service's clock. Expiry of codes, sessions and tokens is judged against it; tests
 * move it forward (`setClock`) instead of sleeping.
 */
let current: () => number = Date.now;

export function now(): Date {
  return new Date(current());
}

export function nowMs(): number {
  return current();
}

/** Replaces the clock (tests); `setClock()` restores the real one. */
export function setClock(fn?: () => number): void {
  current = fn ?? Date.now;
}
