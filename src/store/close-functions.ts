/**
 * The auction close's locks and writes, one database call each.
 *
 * `rfq_close_lock` takes what the close decides from, in the order every batch of selections
 * takes its locks: the due RFQs among those asked, still PENDING, not being accepted as a perp
 * (an executor's check in flight), FOR UPDATE SKIP LOCKED in id order (a second closer skips
 * them); their quotes FOR UPDATE in id order; and for the open quotes of autoAccept RFQs, each
 * (maker, instrument) protection row FOR UPDATE with its selections in the window
 * (`rfq_locked_protections`, accept-functions.ts), in (maker, instrument) order; and which of
 * those makers may not be selected at all (`rfq_barred_makers`, accept-functions.ts).
 *
 * `rfq_close_write` relocks or
 * releases the autoAccept takers' funds (`rfq_relock_many`, ledger.ts), writes the batch's RFQ and
 * quote transitions (`rfq_write_rfq_statuses`, `rfq_write_quote_statuses`: every row in its
 * `from` status or the call raises and the transaction rolls back), and answers the ended locks,
 * the written rows and the balances of every account whose lock it ended, from which the use case
 * (src/services/rfq/close-auction.ts) builds its frames. It decides nothing.
 */
import { sql, type Selectable } from 'kysely';
import { decodeRow, parseExactJson } from './json-rows.ts';
import { PROTECTION_COLUMNS, type LockedProtection } from './accept-functions.ts';
import { relockArguments, type LiveLock, type LockChange, type Rail } from './ledger.ts';
import { quoteStatusArguments, type QuoteStatusWrite } from './quote-status.ts';
import { rfqStatusArguments, type RfqCloseChange } from './rfq-status.ts';
import { BALANCE_COLUMNS, QUOTE_COLUMNS, RFQ_COLUMNS } from './row-columns.ts';
import type { BalancesTable, QuotesTable, RfqsTable } from './schema.ts';
import type { Tx } from './transaction.ts';

export const RFQ_CLOSE_LOCK_SQL = `
create or replace function rfq_close_lock(p_ids text[], p_now int8)
returns jsonb
language plpgsql as $fn$
declare
  v_rfqs jsonb := '[]';
  v_locked text[];
  v_quotes jsonb := '[]';
  v_protections jsonb := '[]';
  v_makers uuid[] := '{}';
  v_pair record;
begin
  select coalesce(jsonb_agg(to_jsonb(r) order by r.id), '[]'), array_agg(r.id order by r.id) into v_rfqs, v_locked
    from (select r.* from rfqs r
          where r.id = any(p_ids) and r.status = 'PENDING' and r.auction_ends_at <= p_now
            and not exists (select 1 from perp_executions e where e.rfq_id = r.id and e.phase = 'checking')
          order by r.id
          for update of r skip locked) as r;
  if v_locked is null then
    return jsonb_build_object('rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections, 'barred', '[]'::jsonb);
  end if;
  select coalesce(jsonb_agg((to_jsonb(q) || jsonb_build_object('xchange', q.xchange::text)) order by q.id), '[]') into v_quotes
    from (select q.* from quotes q where q.rfq_id = any(v_locked) order by q.id for update of q) as q;
  for v_pair in
    select distinct q.maker_account_id as maker, r.instrument_id as instrument
      from quotes q join rfqs r on r.id = q.rfq_id
      where q.rfq_id = any(v_locked) and r.id = any(v_locked) and r.auto_accept and q.status = 'SUBMITTED'
      order by 1, 2
  loop
    v_protections := v_protections || rfq_locked_protections(v_pair.maker, v_pair.instrument, p_now);
    v_makers := v_makers || v_pair.maker;
  end loop;
  return jsonb_build_object('rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections,
    'barred', rfq_barred_makers(v_makers, p_now));
end
$fn$;
`;

export const RFQ_CLOSE_WRITE_SQL = `
create or replace function rfq_close_write(
  p_now int8,
  p_lock_owners text[], p_lock_reasons text[], p_new_lock_ids uuid[], p_kept numeric[],
  p_rfq_ids text[], p_rfq_from text[], p_rfq_to text[], p_quoted_at int8[], p_selected text[], p_failure_codes text[], p_failure_reasons text[],
  p_quote_ids text[], p_quote_from text[], p_quote_to text[], p_quote_deadlines int8[], p_quote_fields text[])
returns jsonb
language plpgsql as $fn$
declare
  v_ended jsonb := '[]';
  v_rfqs jsonb;
  v_quotes jsonb;
  v_written int;
  v_balances jsonb;
begin
  if coalesce(cardinality(p_lock_owners), 0) > 0 then
    select coalesce(jsonb_agg(to_jsonb(e)), '[]') into v_ended
      from rfq_relock_many(p_now, p_lock_owners, p_lock_reasons, p_new_lock_ids, p_kept) as e;
  end if;
  select count(*), coalesce(jsonb_agg(to_jsonb(r)), '[]') into v_written, v_rfqs
    from rfq_write_rfq_statuses(p_now, p_rfq_ids, p_rfq_from, p_rfq_to, p_quoted_at, p_selected, p_failure_codes, p_failure_reasons) as r;
  if v_written <> coalesce(cardinality(p_rfq_ids), 0) then
    raise exception 'RFQ batch wrote % of % rows: some changed under their locks', v_written, cardinality(p_rfq_ids);
  end if;
  v_quotes := rfq_write_quote_batch(p_now, p_quote_ids, p_quote_from, p_quote_to, p_quote_deadlines, p_quote_fields);
  -- Under the accounts' frame locks (balance-frames.ts): each frame built from these rows is numbered after every commit they include.
  v_balances := rfq_balance_frame_rows(array(select (e ->> 'account_id')::uuid from jsonb_array_elements(v_ended) as e));
  return jsonb_build_object('ended', v_ended, 'rfqs', v_rfqs, 'quotes', v_quotes, 'balances', v_balances);
end
$fn$;
`;

export interface CloseLocked {
  /** The RFQs this close took, in id order. */
  rfqs: Array<Selectable<RfqsTable>>;
  /** Their quotes, in id order. */
  quotes: Array<Selectable<QuotesTable>>;
  protections: LockedProtection[];
  /** The makers of those open quotes that may not be selected (`rfq_barred_makers`). */
  barred: string[];
}

/** Locks the due auctions among `rfqIds` that no other closer holds, with what their close reads (above). */
export async function lockClose(tx: Tx, rfqIds: readonly string[], now: number): Promise<CloseLocked> {
  const { rows } = await sql<{ locked: string }>`select rfq_close_lock(${[...rfqIds]}::text[], ${now}::int8)::text as locked`.execute(tx);
  const locked = parseExactJson<{ rfqs: Json[]; quotes: Json[]; protections: Json[]; barred: string[] }>(rows[0]!.locked);
  return {
    rfqs: locked.rfqs.map((r) => decodeRow(r, RFQ_COLUMNS)),
    quotes: locked.quotes.map((q) => decodeRow(q, QUOTE_COLUMNS)),
    protections: locked.protections.map((p) => decodeRow(p, PROTECTION_COLUMNS)),
    barred: locked.barred,
  };
}

export interface CloseWrite {
  now: number;
  locks: LockChange[];
  rfqs: RfqCloseChange[];
  quotes: QuoteStatusWrite[];
}

export interface CloseWritten {
  /** Each ended lock by its owner (the RFQ id). */
  ended: Map<string, LiveLock>;
  /** RFQs and quotes in the order asked. */
  rfqs: Array<Selectable<RfqsTable>>;
  quotes: Array<Selectable<QuotesTable>>;
  /** The balances of every account whose lock ended, in (account, token, rail) order. */
  balances: Array<Selectable<BalancesTable>>;
}

type Json = Record<string, unknown>;

export async function writeClose(tx: Tx, write: CloseWrite): Promise<CloseWritten> {
  const [owners, reasons, lockIds, kept] = relockArguments(write.locks);
  const [rfqIds, rfqFrom, rfqTo, quotedAt, selected, failureCodes, failureReasons] = rfqStatusArguments(write.rfqs);
  const [quoteIds, quoteFrom, quoteTo, deadlines, fields] = quoteStatusArguments(write.quotes);
  const { rows } = await sql<{ written: string }>`
    select rfq_close_write(${write.now}::int8,
      ${owners}::text[], ${reasons}::text[], ${lockIds}::uuid[], ${kept}::numeric[],
      ${rfqIds}::text[], ${rfqFrom}::text[], ${rfqTo}::text[], ${quotedAt}::int8[], ${selected}::text[], ${failureCodes}::text[], ${failureReasons}::text[],
      ${quoteIds}::text[], ${quoteFrom}::text[], ${quoteTo}::text[], ${deadlines}::int8[], ${fields}::text[])::text as written
  `.execute(tx);
  const written = parseExactJson<{ ended: Json[]; rfqs: Json[]; quotes: Json[]; balances: Json[] }>(rows[0]!.written);
  const ended = new Map<string, LiveLock>();
  for (const e of written.ended) {
    ended.set(e.owner_id as string, { lockId: e.lock_id as string, accountId: e.account_id as string, token: e.token as string, rail: e.rail as Rail, amount: BigInt(e.amount as string) });
  }
  const rfqById = new Map(written.rfqs.map((r) => decodeRow(r, RFQ_COLUMNS)).map((r) => [r.id, r]));
  const quoteById = new Map(written.quotes.map((q) => decodeRow(q, QUOTE_COLUMNS)).map((q) => [q.id, q]));
  return {
    ended,
    rfqs: write.rfqs.map((r) => rfqById.get(r.id)!),
    quotes: write.quotes.map((q) => quoteById.get(q.id)!),
    balances: written.balances.map((b) => decodeRow(b, BALANCE_COLUMNS)),
  };
}
