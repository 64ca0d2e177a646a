/**
 * The auction clock. The auction is open while `now < auctionEndsAt` (spec: quote and accept
 * "before auctionEndsAt"; taker cancel "before auctionEndsAt"). At `auctionEndsAt` itself it is
 * closed, and the close (selection or expiry) belongs to the auction-closing worker.
 */
import { ServiceError } from '../errors.ts';
import type { RfqStatus, UnixMillis } from './types.ts';

export function isAuctionOpen(auctionEndsAt: UnixMillis, now: UnixMillis): boolean {
  return now < auctionEndsAt;
}

/**
 * An RFQ takes quotes (and re-quotes) while PENDING and its auction open. The quote write checks
 * the same rule inside the database as `rfq_open_for_quotes` (src/store/sql/rfq_open_for_quotes.sql),
 * held to this one by test/store/sql-checks.test.ts.
 */
export function isOpenForQuotes(status: RfqStatus, auctionEndsAt: UnixMillis, now: UnixMillis): boolean {
  return status === 'PENDING' && isAuctionOpen(auctionEndsAt, now);
}

/** @throws ServiceError AUCTION_CLOSED (details.auctionEndsAt) once `now >= auctionEndsAt`. */
export function assertAuctionOpen(auctionEndsAt: UnixMillis, now: UnixMillis): void {
  if (!isAuctionOpen(auctionEndsAt, now)) {
    throw new ServiceError('AUCTION_CLOSED', 'the auction has closed', { auctionEndsAt });
  }
}
