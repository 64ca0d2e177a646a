/** Reconnect delays: exponential from `initialDelayMs`, capped at `maxDelayMs`, with jitter. */

export interface BackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 250, maxDelayMs: 10_000 };

/**
 * Delay before reconnect attempt `attempt` (1-based). Half of it is random ("equal jitter") so
 * many clients dropped by one restart do not return in the same millisecond.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
