/**
 * Which store errors the same write meets again however often it is retried: SQLSTATE class 22
 * (data exception), e.g. 22P05 (an escape `jsonb` cannot hold, such as `\u0000`), 22P02 (a lone
 * surrogate in `jsonb`), 22003 (a number out of range), 22001 (a string too long). Both stores
 * report PostgreSQL's codes. Connection losses, serialisation failures and lock timeouts are
 * other classes: those a retry may get past.
 */

/** The SQLSTATE of `error` or of an error in its `cause` chain, or null. */
export function sqlState(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

/** The store refused the data itself: retrying the same write cannot succeed. */
export function isPermanentWriteRefusal(error: unknown): boolean {
  return sqlState(error)?.startsWith('22') ?? false;
}
