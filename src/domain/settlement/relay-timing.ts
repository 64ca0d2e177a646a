/**
 * Relay timing (DESIGN.md section 15): a spot maker that relays the service's Permit2 holds a free
 * option until it relays, so its relay is timed from the selection. A relay later than
 * `relayGraceSecs` after it is a late relay, counted against the maker like a failed settlement.
 */

/**
 * When the relay happened, in ms: the earlier of its block's timestamp and the moment the service
 * saw it. The block's time keeps the confirmation depth and an outage of the follower from making
 * a prompt relay late; the sighting bounds a chain whose clock runs ahead of the wall clock.
 */
export function relayedAt(blockTimestampSecs: number | null, observedAt: number): number {
  return blockTimestampSecs === null ? observedAt : Math.min(blockTimestampSecs * 1000, observedAt);
}

/** Milliseconds from the selection to the relay, never negative. */
export function relayDelayMs(selectedAt: number, relayed: number): number {
  return Math.max(0, relayed - selectedAt);
}

/** True when a relay `delayMs` after the selection is past the grace. */
export function isLateRelay(delayMs: number, relayGraceSecs: number): boolean {
  return delayMs > relayGraceSecs * 1000;
}
