/**
 * What a maker's scorecard is computed from, each read bounded by the window through an index:
 * the RFQs it could see (`rfqs_by_instrument`), its quotes with each RFQ's winner
 * (`quotes_by_maker`), its failures (`maker_failures_by_maker`).
 */
import { reachesMaker } from './rfq-audience.ts';
import type { Reader } from './transaction.ts';

export interface ScorecardMaker {
  maker_id: string;
  account_id: string;
  pairs: string[];
  settlement_modes: string[];
}

export async function scorecardMakerByAccount(db: Reader, accountId: string): Promise<ScorecardMaker | undefined> {
  return db.selectFrom('makers').select(['maker_id', 'account_id', 'pairs', 'settlement_modes']).where('account_id', '=', accountId).executeTakeFirst();
}

export async function scorecardMakerByAddress(db: Reader, address: string): Promise<ScorecardMaker | undefined> {
  return db
    .selectFrom('makers')
    .innerJoin('accounts', 'accounts.id', 'makers.account_id')
    .select(['makers.maker_id', 'makers.account_id', 'makers.pairs', 'makers.settlement_modes'])
    .where('accounts.address', '=', address)
    .executeTakeFirst();
}

/** How many RFQs of `instrumentIds` created since `since`, not the maker's own, reached the maker. */
export async function rfqsSeenBy(db: Reader, maker: ScorecardMaker, instrumentIds: readonly string[], since: number): Promise<number> {
  if (instrumentIds.length === 0) return 0;
  const row = await db
    .selectFrom('rfqs')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('instrument_id', 'in', [...instrumentIds])
    .where('created_at', '>=', since)
    .where('account_id', '<>', maker.account_id)
    .where(reachesMaker(maker.account_id))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The maker's quotes since `since`, each with its RFQ's side, creation and winner's legs. */
export async function scorecardQuotes(db: Reader, makerId: string, since: number) {
  return db
    .selectFrom('quotes as q')
    .innerJoin('rfqs as r', 'r.id', 'q.rfq_id')
    .leftJoin('quotes as w', 'w.id', 'r.selected_quote_id')
    .select(['q.id', 'q.rfq_id', 'q.created_at', 'q.status', 'q.maker_pays_amount', 'q.maker_receives_amount', 'r.created_at as rfq_created_at', 'r.side', 'r.selected_quote_id', 'r.sweep_fills', 'w.maker_pays_amount as winner_pays', 'w.maker_receives_amount as winner_receives'])
    .where('q.maker_id', '=', makerId)
    .where('q.created_at', '>=', since)
    .execute();
}

/** The maker's failures since `since`, newest first, with their RFQ's side, instrument and selection time. */
export async function scorecardFailures(db: Reader, makerId: string, since: number) {
  return db
    .selectFrom('maker_failures as f')
    .innerJoin('rfqs as r', 'r.id', 'f.rfq_id')
    .select(['f.quote_id', 'f.reason', 'f.created_at', 'f.delay_ms', 'r.side', 'r.instrument_id', 'r.quoted_at'])
    .where('f.maker_id', '=', makerId)
    .where('f.created_at', '>=', since)
    .orderBy('f.created_at', 'desc')
    .execute();
}
