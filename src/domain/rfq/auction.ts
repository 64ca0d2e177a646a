/**
 * The auction clock. The auction is open while `now < auctionEndsAt` (spec: quote and accept
 * "before auctionEndsAt"; taker cancel "before auctionEndsAt"). At `auctionEndsAt` itself it is
 * closed, and the close (selection or expiry) belongs to the auction-closing worker.
 */
import { ServiceError } from '../errors.ts';
import type { UnixMillis } from './types.ts';

export function isAuctionOpen(auctionEndsAt: UnixMillis, now: UnixMillis): boolean {
  return now < auctionEndsAt;
}

/** @throws ServiceError AUCTION_CLOSED (details.auctionEndsAt) once `now >= auctionEndsAt`. */
export function assertAuctionOpen(auctionEndsAt: UnixMillis, now: UnixMillis): void {
  if (!isAuctionOpen(auctionEndsAt, now)) {
    throw new ServiceError('AUCTION_CLOSED', 'the auction has closed', { auctionEndsAt });
  }
}
