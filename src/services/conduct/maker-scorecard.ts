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
import { reachesMaker } from '../../store/rfq-audience.ts';
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
  const maker = await deps.db.selectFrom('makers').select(['maker_id', 'account_id', 'pairs', 'settlement_modes']).where('account_id', '=', accountId).executeTakeFirst();
  if (!maker) throw new ServiceError('MAKER_NOT_APPROVED', 'this account is not a maker');
  return scorecardOf(deps, maker, windowSecs);
}

/** The operator's read of any maker's scorecard, by address. */
export async function makerScorecard(deps: ServiceDeps, rawAddress: string, windowSecs = DEFAULT_SCORECARD_WINDOW_SECS): Promise<Scorecard> {
  const address = normaliseAddress(rawAddress, 'address');
  const maker = await deps.db
    .selectFrom('makers')
    .innerJoin('accounts', 'accounts.id', 'makers.account_id')
    .select(['makers.maker_id', 'makers.account_id', 'makers.pairs', 'makers.settlement_modes'])
    .where('accounts.address', '=', address)
    .executeTakeFirst();
  if (!maker) throw new ServiceError('NOT_FOUND', 'no maker with this address');
  return scorecardOf(deps, maker, windowSecs);
}

interface MakerKeys {
  maker_id: string;
  account_id: string;
  pairs: string[];
  settlement_modes: string[];
}

async function scorecardOf(deps: ServiceDeps, maker: MakerKeys, windowSecs: number): Promise<Scorecard> {
  const since = deps.clock.now() - windowSecs * 1000;
  const reference = await deps.refdata.current();
  const served = servedInstrumentIds({ pairs: maker.pairs, settlementModes: maker.settlement_modes }, reference.instruments.values());
  const [seen, quotes, failures] = await Promise.all([
    served.length === 0
      ? Promise.resolve({ n: 0 })
      : deps.db
          .selectFrom('rfqs')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('instrument_id', 'in', served)
          .where('created_at', '>=', since)
          .where('account_id', '<>', maker.account_id)
          .where(reachesMaker(maker.account_id))
          .executeTakeFirstOrThrow(),
    deps.db
      .selectFrom('quotes as q')
      .innerJoin('rfqs as r', 'r.id', 'q.rfq_id')
      .leftJoin('quotes as w', 'w.id', 'r.selected_quote_id')
      .select(['q.id', 'q.rfq_id', 'q.created_at', 'q.status', 'q.maker_pays_amount', 'q.maker_receives_amount', 'r.created_at as rfq_created_at', 'r.side', 'r.selected_quote_id', 'w.maker_pays_amount as winner_pays', 'w.maker_receives_amount as winner_receives'])
      .where('q.maker_id', '=', maker.maker_id)
      .where('q.created_at', '>=', since)
      .execute(),
    deps.db
      .selectFrom('maker_failures as f')
      .innerJoin('rfqs as r', 'r.id', 'f.rfq_id')
      .select(['f.quote_id', 'f.reason', 'f.created_at', 'f.delay_ms', 'r.side', 'r.instrument_id', 'r.quoted_at'])
      .where('f.maker_id', '=', maker.maker_id)
      .where('f.created_at', '>=', since)
      .orderBy('f.created_at', 'desc')
      .execute(),
  ]);

  const firstQuote = new Map<string, number>();
  const lostBy: number[] = [];
  let wins = 0;
  let settled = 0;
  for (const q of quotes) {
    const delay = Math.max(0, q.created_at - q.rfq_created_at);
    firstQuote.set(q.rfq_id, Math.min(firstQuote.get(q.rfq_id) ?? delay, delay));
    if (q.selected_quote_id === q.id) wins++;
    if (q.status === 'SETTLED') settled++;
    if (q.selected_quote_id !== null && q.selected_quote_id !== q.id && q.winner_pays !== null && q.winner_receives !== null) {
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
    rfqsSeen: Number(seen.n),
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
