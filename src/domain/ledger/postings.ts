/**
 * The shape of a ledger movement (DESIGN.md section 3): postings summing to zero per token.
 * Pure data: the posting sets (posting-sets.ts) build them, `src/store/ledger.ts` books them.
 */

export type Rail = 'EVM' | 'VENUE';
export type LedgerSource = 'DEPOSIT' | 'WITHDRAWAL' | 'SETTLEMENT' | 'FEE' | 'ADJUSTMENT' | 'ORDER_FILL';
/** System books that balance user postings; `user` postings carry an account id. */
export type Book = 'user' | 'custody' | 'fees' | 'adjustments' | 'maker_settlement' | 'venue' | 'unattributed'
  /** Custody movements the service could not attribute to a live trade (an RfqSettled after the RFQ failed); the operator resolves them. */
  | 'suspense';

export interface Posting {
  book: Book;
  accountId?: string;
  token: string;
  rail: Rail;
  delta: bigint;
  source: LedgerSource;
  /** For user debits: take from `locked` (a consumed lock) instead of `available`. */
  fromLocked?: boolean;
}

/** @throws Error when the postings do not sum to zero for some token (a bug, never user input). */
export function assertBalanced(postings: Posting[]): void {
  const sums = new Map<string, bigint>();
  for (const p of postings) sums.set(p.token, (sums.get(p.token) ?? 0n) + p.delta);
  for (const [token, sum] of sums) {
    if (sum !== 0n) throw new Error(`ledger movement does not balance for ${token}: ${sum}`);
  }
}
