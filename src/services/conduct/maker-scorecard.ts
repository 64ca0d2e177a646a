/**
 * A maker's scorecard (DESIGN.md section 15): `GET /v1/rfq/maker/scorecard` for its own,
 * `GET /admin/v1/makers/{address}/scorecard` for the operator, over the last `windowSecs`.
 *
 * Computed from what the store already records, read through indexes bounded by the window: the
 * RFQs it could see (`rfqs_by_instrument`, its instruments' RFQs in the window), its quotes
 * (`quotes_by_maker`, its own in the window, with each RFQ's winner), its failures
 * (`maker_failures_by_maker`) and, for each fade and late relay, two price marks (`price_marks`
 * by key). Nothing reads history older than the window, which is 30 days at most, so the cost
 * grows with the maker's own activity in it, not with the venue's history.
 *
 * A fade is a selected quote the maker let fail (`notSettled`, `notDelivered`): the free option
 * taken. Its delay runs from the selection to the moment the service recorded the failure; a late
 * relay's from the selection to the relay. The market's move over the delay is the consolidated
 * mid's, positive when it moved in the maker's favour; null without a mark at both ends.
 */
import { ServiceError } from '../../domain/errors.ts';
import { lostByBps, marketMoveBps, nearestRank, servedInstrumentIds, type Side } from '../../domain/rfq/index.ts';
import { priceMarkAt } from '../../store/price-marks.ts';
import { rfqsSeenBy, scorecardFailures, scorecardMakerByAccount, scorecardMakerByAddress, scorecardQuotes, type ScorecardMaker } from '../../store/scorecard-reads.ts';
import type { ServiceDeps } from '../deps.ts';
import { normaliseAddress } from '../admin/makers.ts';

export const DEFAULT_SCORECARD_WINDOW_SECS = 86_400;
export const MAX_SCORECARD_WINDOW_SECS = 30 * 86_400;
/** The fades and late relays listed, newest first. */
const MOVES_LISTED = 100;
const FADE_REASONS = new Set(['notSettled', 'notDelivered']);

export interface ScorecardMove {
  quoteId: string;
  kind: 'fade' | 'lateRelay';
  delayMs: number;
  marketMoveBps: number | null;
}

export interface Scorecard {
  windowSecs: number;
  rfqsSeen: number;
  rfqsQuoted: number;
  firstQuoteMs: { p50: number | null; p99: number | null };
  wins: number;
  lostByBps: { median: number | null };
  settled: number;
  failures: number;
  fades: number;
  lateRelays: number;
  moves: ScorecardMove[];
}

/** The scorecard of the maker whose account is `accountId`. */
export async function ownScorecard(deps: ServiceDeps, accountId: string, windowSecs = DEFAULT_SCORECARD_WINDOW_SECS): Promise<Scorecard> {
  const maker = await scorecardMakerByAccount(deps.db, accountId);
  if (!maker) throw new ServiceError('MAKER_NOT_APPROVED', 'this account is not a maker');
  return scorecardOf(deps, maker, windowSecs);
}

/** The operator's read of any maker's scorecard, by address. */
export async function makerScorecard(deps: ServiceDeps, rawAddress: string, windowSecs = DEFAULT_SCORECARD_WINDOW_SECS): Promise<Scorecard> {
  const address = normaliseAddress(rawAddress, 'address');
  const maker = await scorecardMakerByAddress(deps.db, address);
  if (!maker) throw new ServiceError('NOT_FOUND', 'no maker with this address');
  return scorecardOf(deps, maker, windowSecs);
}

async function scorecardOf(deps: ServiceDeps, maker: ScorecardMaker, windowSecs: number): Promise<Scorecard> {
  const since = deps.clock.now() - windowSecs * 1000;
  const reference = await deps.refdata.current();
  const served = servedInstrumentIds({ pairs: maker.pairs, settlementModes: maker.settlement_modes }, reference.instruments.values());
  const [seen, quotes, failures] = await Promise.all([
    rfqsSeenBy(deps.db, maker, served, since),
    scorecardQuotes(deps.db, maker.maker_id, since),
    scorecardFailures(deps.db, maker.maker_id, since),
  ]);

  const firstQuote = new Map<string, number>();
  const lostBy: number[] = [];
  let wins = 0;
  let settled = 0;
  for (const q of quotes) {
    const delay = Math.max(0, q.created_at - q.rfq_created_at);
    firstQuote.set(q.rfq_id, Math.min(firstQuote.get(q.rfq_id) ?? delay, delay));
    // On a sweep every selected quote won its leg; the legs' sizes differ, so nothing is measured against them.
    const won = q.selected_quote_id === q.id || (q.sweep_fills ?? []).some((f) => f.quoteId === q.id);
    if (won) wins++;
    if (q.status === 'SETTLED') settled++;
    if (q.selected_quote_id !== null && !won && q.sweep_fills === null && q.winner_pays !== null && q.winner_receives !== null) {
      const side = q.side as Side;
      lostBy.push(side === 'BUY' ? lostByBps(side, BigInt(q.maker_receives_amount), BigInt(q.winner_receives)) : lostByBps(side, BigInt(q.maker_pays_amount), BigInt(q.winner_pays)));
    }
  }
  const delays = [...firstQuote.values()];

  const lateRelays = failures.filter((f) => f.reason === 'lateRelay');
  const fades = failures.filter((f) => FADE_REASONS.has(f.reason));
  const moves = await Promise.all(
    failures
      .filter((f) => f.reason === 'lateRelay' || FADE_REASONS.has(f.reason))
      .slice(0, MOVES_LISTED)
      .map(async (f): Promise<ScorecardMove> => {
        const kind = f.reason === 'lateRelay' ? 'lateRelay' : 'fade';
        const selectedAt = f.quoted_at ?? f.created_at;
        const delayMs = kind === 'lateRelay' && f.delay_ms !== null ? Number(f.delay_ms) : Math.max(0, f.created_at - selectedAt);
        const [before, after] = await Promise.all([priceMarkAt(deps.db, f.instrument_id, selectedAt), priceMarkAt(deps.db, f.instrument_id, selectedAt + delayMs)]);
        return { quoteId: f.quote_id, kind, delayMs, marketMoveBps: before === null || after === null ? null : marketMoveBps(f.side as Side, before, after) };
      }),
  );

  return {
    windowSecs,
    rfqsSeen: seen,
    rfqsQuoted: firstQuote.size,
    firstQuoteMs: { p50: nearestRank(delays, 50), p99: nearestRank(delays, 99) },
    wins,
    lostByBps: { median: nearestRank(lostBy, 50) },
    settled,
    failures: failures.length - lateRelays.length,
    fades: fades.length,
    lateRelays: lateRelays.length,
    moves,
  };
}
