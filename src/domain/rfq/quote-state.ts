/**
 * The quote state machine (spec, "States and transitions", Quote). The only code that decides a
 * quote's next status and the frames it pushes (`decideQuote`): every transition tells the maker
 * (`quoteStatus`), and some the taker too (`quoteUpdate`). The status and frames are persisted by
 * src/services/rfq/persist-transition.ts through src/store/quote-status.ts (a re-quote by the
 * quote-write SQL function, which builds the same frames in SQL). Each event is allowed
 * from exactly one status; anything else is a named refusal, chosen by who sent the event:
 * - maker events (`makerCancel`, `requote`) on a quote that is no longer SUBMITTED: QUOTE_NOT_OPEN
 *   (spec: maker cancel answers 409 "quote no longer open");
 * - `select` (the taker's accept, or the auction close) on a non-SUBMITTED quote:
 *   QUOTE_NOT_ACCEPTABLE with `details.reason` `status`, as `quoteRefusal` reports it;
 * - service-internal events (`notSelect`, `expire`, `perpRefused`, `settle`, `fail`,
 *   `reposition`) on the wrong status mean a race or a bug: CONFLICT.
 */
import type { ErrorCode } from '../error-codes.ts';
import type { Frame } from '../frames.ts';
import { decideRule } from '../state-machine.ts';
import type { QuoteStatus } from './types.ts';

export type QuoteEvent =
  /** Maker re-prices: same quoteId, new terms, version advances, receivedAt restamped. */
  | 'requote'
  /** Chosen by an accept or by the auction close. */
  | 'select'
  /** Another quote was chosen. */
  | 'notSelect'
  /** The auction ended (or the taker cancelled) with no winner. */
  | 'expire'
  /** Settlement succeeded. */
  | 'settle'
  /** Settlement did not complete. */
  | 'fail'
  /** Maker withdraws the quote before selection. */
  | 'makerCancel'
  /** The taker's perp order for this quote was refused after the 202. */
  | 'perpRefused'
  /** A perp backup's place in the cascade changed (DESIGN.md 9.3): its maker is told the new `position`. */
  | 'reposition';

export const QUOTE_EVENTS = [
  'requote',
  'select',
  'notSelect',
  'expire',
  'settle',
  'fail',
  'makerCancel',
  'perpRefused',
  'reposition',
] as const satisfies readonly QuoteEvent[];

interface QuoteRule {
  from: QuoteStatus;
  to: QuoteStatus;
  /**
   * The taker's live quote book changes outside a selection: a `quoteUpdate` frame tells the
   * taker (a re-priced quote, or one it may no longer accept). Selection and expiry reach the
   * taker through the RFQ's own status frame instead.
   */
  tellsTaker: boolean;
  refusal: ErrorCode;
}

const RULES: Record<QuoteEvent, QuoteRule> = {
  requote: { from: 'SUBMITTED', to: 'SUBMITTED', tellsTaker: true, refusal: 'QUOTE_NOT_OPEN' },
  makerCancel: { from: 'SUBMITTED', to: 'CANCELLED', tellsTaker: true, refusal: 'QUOTE_NOT_OPEN' },
  select: { from: 'SUBMITTED', to: 'SELECTED', tellsTaker: false, refusal: 'QUOTE_NOT_ACCEPTABLE' },
  notSelect: { from: 'SUBMITTED', to: 'NOT_SELECTED', tellsTaker: false, refusal: 'CONFLICT' },
  expire: { from: 'SUBMITTED', to: 'EXPIRED', tellsTaker: false, refusal: 'CONFLICT' },
  perpRefused: { from: 'SUBMITTED', to: 'FAILED', tellsTaker: true, refusal: 'CONFLICT' },
  settle: { from: 'SELECTED', to: 'SETTLED', tellsTaker: false, refusal: 'CONFLICT' },
  fail: { from: 'SELECTED', to: 'FAILED', tellsTaker: false, refusal: 'CONFLICT' },
  reposition: { from: 'SUBMITTED', to: 'SUBMITTED', tellsTaker: false, refusal: 'CONFLICT' },
};

export interface QuoteDecision {
  status: QuoteStatus;
  /** Pushed in this order: the quote to its maker, then (see QuoteRule) to the RFQ's taker. */
  frames: Frame[];
}

/**
 * The status after `event` and the frames it pushes, or a refusal.
 * @throws ServiceError QUOTE_NOT_OPEN, QUOTE_NOT_ACCEPTABLE or CONFLICT, with `details.status`
 *   and `details.event` (and `details.reason` `status` on QUOTE_NOT_ACCEPTABLE).
 */
export function decideQuote(quote: { id: string; status: QuoteStatus }, event: QuoteEvent): QuoteDecision {
  const rule = ruleOf(quote.status, event);
  const frames: Frame[] = [{ kind: 'quoteStatus', quoteId: quote.id }];
  if (rule.tellsTaker) frames.push({ kind: 'quoteUpdate', quoteId: quote.id });
  return { status: rule.to, frames };
}

/** The status after `event`, or a refusal (as `decideQuote`). */
export function transitionQuote(status: QuoteStatus, event: QuoteEvent): QuoteStatus {
  return ruleOf(status, event).to;
}

function ruleOf(status: QuoteStatus, event: QuoteEvent): QuoteRule {
  return decideRule('quote', RULES, status, event, (r) => (r.refusal === 'QUOTE_NOT_ACCEPTABLE' ? { reason: 'status' } : {}));
}

/** Open means the maker may still cancel or re-price it and it may still win: SUBMITTED only. */
export function isOpenQuote(status: QuoteStatus): boolean {
  return status === 'SUBMITTED';
}

/** No event moves a quote out of these. */
export function isTerminalQuote(status: QuoteStatus): boolean {
  return status !== 'SUBMITTED' && status !== 'SELECTED';
}
