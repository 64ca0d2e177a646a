/**
 * Routes whose use case claims the request timestamp inside its own write (config
 * `deferTimestampClaim`) run through here: when the use case refuses before its claim became
 * durable, the claim is made now, so a refused request can never be replayed to success later.
 */
import type { AuthContext } from '../services/auth/authenticate-request.ts';
import { assertTimestampClaimed } from '../services/auth/timestamp-claims.ts';
import type { ApiContext } from './context.ts';

export async function withDeferredClaim<T>(context: ApiContext, auth: AuthContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!auth.timestampClaimed) assertTimestampClaimed(await context.authentication.claims.claim(auth.accessKey, auth.signedAt), context.service.clock.now());
    throw error;
  }
}
