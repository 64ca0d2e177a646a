/**
 * The pushed frames a transition produces, as data (spec, "Which operation produces which
 * event"): each machine's decision lists them, in the order they are pushed, and the persist step
 * (src/services/frames.ts) turns each into an outbox row in the transition's own transaction.
 * A frame names what it is about and so whom it goes to; its content is the entity as written.
 */
export type Frame =
  /** The RFQ as written, to its taker (topic `rfqStatus`). */
  | { kind: 'rfqStatus'; rfqId: string }
  /** A newly open RFQ, to every maker (topic `openRfqs`). */
  | { kind: 'openRfq'; rfqId: string }
  /** The quote as written, to its maker (topic `quoteStatus`). */
  | { kind: 'quoteStatus'; quoteId: string }
  /** The quote as written, to the taker of its RFQ (topic `quotes`). */
  | { kind: 'quoteUpdate'; quoteId: string }
  /** The account's balances after the transition (topic `balances`). */
  | { kind: 'balances'; accountId: string };
