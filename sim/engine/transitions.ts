/**
 * Which status a client may see after another, derived from the domain's own state machines
 * (src/domain/rfq/rfq-state.ts, quote-state.ts, src/domain/funds/withdrawal-state.ts) rather than
 * restated: `direct` holds one-transition edges (what a per-transition frame may show), `reachable`
 * their transitive closure (what two REST reads some time apart may show).
 */
import { RFQ_EVENTS, QUOTE_EVENTS, transitionRfq, transitionQuote } from '../../src/domain/rfq/index.ts';
import { WITHDRAWAL_EVENTS, WITHDRAWAL_STATUSES, transitionWithdrawal } from '../../src/domain/funds/withdrawal-state.ts';

export interface StatusGraph {
  direct: Set<string>;
  reachable: Set<string>;
}

function graph<S extends string, E extends string>(statuses: readonly S[], events: readonly E[], step: (status: S, event: E) => S): StatusGraph {
  const direct = new Set<string>();
  for (const from of statuses) {
    for (const event of events) {
      try {
        direct.add(`${from}>${step(from, event)}`);
      } catch {
        // Refused: no edge.
      }
    }
  }
  const reachable = new Set(direct);
  for (let grew = true; grew; ) {
    grew = false;
    for (const ab of [...reachable]) {
      const [a, b] = ab.split('>');
      for (const bc of [...reachable]) {
        const [b2, c] = bc.split('>');
        if (b === b2 && !reachable.has(`${a}>${c}`)) {
          reachable.add(`${a}>${c}`);
          grew = true;
        }
      }
    }
  }
  return { direct, reachable };
}

export const RFQ_STATUSES = ['PENDING', 'QUOTED', 'SETTLED', 'FAILED', 'CANCELLED'] as const;
export const QUOTE_STATUSES = ['SUBMITTED', 'SELECTED', 'NOT_SELECTED', 'EXPIRED', 'SETTLED', 'FAILED', 'CANCELLED'] as const;

export const rfqGraph = graph(RFQ_STATUSES, RFQ_EVENTS, transitionRfq);
export const quoteGraph = graph(QUOTE_STATUSES, QUOTE_EVENTS, transitionQuote);
export const withdrawalGraph = graph(WITHDRAWAL_STATUSES, WITHDRAWAL_EVENTS, (status, event) => transitionWithdrawal(status, event).status);

/** A client that saw `from` and now sees `to` (either read may repeat the other). */
export function mayFollow(g: StatusGraph, from: string, to: string, kind: 'direct' | 'reachable'): boolean {
  return from === to || g[kind].has(`${from}>${to}`);
}
