/**
 * INSTRUMENT_NOT_FOUND that says what to use instead: `details.available` lists the instrument
 * ids that exist (sorted), so a caller with a typo or the wrong suffix (`ETH-USDC` for
 * `ETH-USDC-SPOT`) sees the right one in the error itself.
 */
import { ServiceError } from '../errors.ts';

export function instrumentNotFound(instrumentId: string, known: Iterable<string>): ServiceError {
  const available = [...known].sort();
  const list = available.length > 0 ? available.join(', ') : 'none';
  return new ServiceError('INSTRUMENT_NOT_FOUND', `no instrument ${JSON.stringify(instrumentId)}; available: ${list}`, { instrumentId, available });
}
