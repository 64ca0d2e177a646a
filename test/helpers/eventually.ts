/**
 * The one place tests wait. Tests wait for a condition, never for a length of time: each form here
 * polls the state the test then asserts, with a bound on the whole wait. The guard in
 * `test/docs/test-waits.test.ts` keeps timers that stand for a wait out of every other test file.
 *
 * - `waitFor(condition, what)`: until `condition` returns something truthy; returns it.
 * - `waitUntil(read, done, what)`: until `done(read())` holds; returns the value read.
 * - `eventually(read, done)`: like `waitUntil`, but returns the last value instead of failing, so
 *   the caller's assertion says what was expected.
 * - `elapse(ms, why)`: time passing is itself what is tested (moving past a window, a measure over a
 *   span); not for waiting on an outcome.
 *
 * There is no wait for an absence: a test shows that something does not happen by waiting for a
 * later event it can observe, one that comes only after the thing had its chance (a worker's later
 * pass, `node.afterPass(worker)`; a later frame on the same socket, `TestSocket.quiet`; a later
 * block booked), and then asserting that it did not happen.
 */
import assert from 'node:assert/strict';

export interface WaitOptions {
  /** Bound on the whole wait. */
  timeoutMs?: number;
  /** Pause between two reads. */
  pollMs?: number;
}

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_POLL_MS = 50;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Reads until `done` holds or the time is up; says which, with the last value read. */
async function poll<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs: number, pollMs: number): Promise<{ value: T; met: boolean }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return { value, met: true };
    if (Date.now() > deadline) return { value, met: false };
    await pause(pollMs);
  }
}

function shown(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Reads until `done` holds or the time is up, then returns the last value read (the caller's
 * assertion says what was expected): for outcomes another process or an executor reaches.
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS, pollMs = DEFAULT_POLL_MS): Promise<T> {
  return (await poll(read, done, timeoutMs, pollMs)).value;
}

/** Reads until `done` holds and returns that value; fails naming `what` (and the last value) when the time is up. */
export async function waitUntil<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, { timeoutMs = DEFAULT_TIMEOUT_MS, pollMs = DEFAULT_POLL_MS }: WaitOptions = {}): Promise<T> {
  const { value, met } = await poll(read, done, timeoutMs, pollMs);
  if (!met) assert.fail(`${what}: did not happen within ${timeoutMs} ms (last read ${shown(value)})`);
  return value;
}

/** Polls `condition` until it returns something truthy and returns that; fails naming `what` when the time is up. */
export async function waitFor<T>(condition: () => T | Promise<T>, what: string, options: WaitOptions = {}): Promise<NonNullable<T>> {
  return (await waitUntil(condition, (value) => Boolean(value), what, options)) as NonNullable<T>;
}

/**
 * Lets `ms` pass on purpose, because the passage of time is what the test is about (`why` says
 * how). Waiting for an outcome is `waitFor`; showing something does not happen is a wait for a
 * later event the test can observe, then the assertion.
 */
export async function elapse(ms: number, why: string): Promise<void> {
  assert.ok(why.length > 0, 'say why the time must pass');
  await pause(ms);
}
