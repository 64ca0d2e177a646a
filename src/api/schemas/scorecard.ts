/** A maker's scorecard (DESIGN.md section 15). */
import { Type } from 'typebox';
import { Nullable } from './common.ts';

export const ScorecardQuery = Type.Object(
  { windowSecs: Type.Optional(Type.Integer({ minimum: 60, maximum: 2_592_000, description: 'The window, in seconds up to now (default 86,400; at most 30 days).' })) },
  { additionalProperties: false },
);

export const ScorecardMove = Type.Object({
  quoteId: Type.String(),
  kind: Type.Union([Type.Literal('fade'), Type.Literal('lateRelay')]),
  delayMs: Type.Integer({ description: 'From the selection to the failure (fade) or the relay (lateRelay).' }),
  marketMoveBps: Nullable(Type.Number({ description: "The consolidated mid's move over the delay, in bp; positive in the maker's favour; null without price marks." })),
});

export const Scorecard = Type.Object({
  windowSecs: Type.Integer(),
  rfqsSeen: Type.Integer({ description: 'RFQs on its instruments, from other accounts, created in the window.' }),
  rfqsQuoted: Type.Integer(),
  firstQuoteMs: Type.Object({ p50: Nullable(Type.Integer()), p99: Nullable(Type.Integer()) }, { description: 'From the RFQ to its first quote on it.' }),
  wins: Type.Integer(),
  lostByBps: Type.Object({ median: Nullable(Type.Number()) }, { description: "When another quote won: how far its quote was from the winner's, in bp of the winner's." }),
  settled: Type.Integer(),
  failures: Type.Integer({ description: 'Recorded failures other than late relays (fades included).' }),
  fades: Type.Integer({ description: 'Selected quotes it let fail (not settled, not delivered).' }),
  lateRelays: Type.Integer(),
  moves: Type.Array(ScorecardMove, { description: 'Each fade and late relay in the window, newest first (at most 100).' }),
});
