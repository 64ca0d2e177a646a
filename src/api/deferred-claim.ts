/**
 * Routes whose use case claims the request timestamp inside its own write (config
 * `deferTimestampClaim`) run through here: when the use case refuses before its claim became
 * durable, the claim is made now, so a refused request can never be replayed to success later.
 */
import { ServiceError } from '../domain/errors.ts';
import type { AuthContext } from '../services/auth/authenticate-request.ts';
import type { ApiContext } from './context.ts';

export async function withDeferredClaim<T>(context: ApiContext, auth: AuthContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!auth.timestampClaimed && !(await context.authentication.claims.claim(auth.accessKey, auth.signedAt))) {
      throw new ServiceError('TIMESTAMP_REUSED', 'this timestamp was already used with this access key', { serverTime: context.service.clock.now() });
    }
    throw error;
  }
}
