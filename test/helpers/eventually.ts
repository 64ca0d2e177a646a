/**
 * Reads until `done` holds or the time is up, then returns the last value read (the caller's
 * assertion says what was expected): for outcomes another process or an executor reaches.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000, pollMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
