/**
 * A perp execution's transition in two database calls instead of ten (with PGlite every
 * statement runs on the node's event loop, and the checks' commit alone was ten of them). The
 * executor (src/services/perp/execute-perp.ts) keeps every decision; each call does one side.
 *
 * `rfq_perp_lock` takes what the decisions read, in the order every selection takes: the RFQ and
 * its quotes through `rfq_accept_lock` (no replay claim: the accept took it); while the RFQ is
 * PENDING, the accepted quote's maker's protection row FOR UPDATE with its selections in the
 * window (`rfq_locked_protections`, the definition the spot accept uses); then the taker order's
 * (signer, nonce) claim, once across quotes and accepts (`venue_nonce_claims`), when asked.
 *
 * `rfq_perp_write` writes the transition: first the execution's new columns and its call records,
 * only if it is still held by the caller in the phase it read (else nothing at all is written and
 * `lost` comes back); then the RFQ's and the quotes' compare-and-set (a row that moved under its
 * lock raises, so the transaction rolls back); last, the transition's events (`rfq_append_events`,
 * the frames built from the rows as they are written). It answers the rows as written and the
 * outbox rows. Per row, `fields` is a JSON object of the columns to set beside the
 * status: `?` tells "set to null" from "leave".
 */
import { sql, type Selectable } from 'kysely';
import { decodeRow, parseExactJson, type NumericColumns } from './json-rows.ts';
import { QUOTE_COLUMNS, RFQ_COLUMNS } from './row-columns.ts';
import { PROTECTION_COLUMNS, type LockedProtection } from './accept-functions.ts';
import type { PerpExecutionsTable, QuotesTable, RfqsTable } from './schema.ts';
import type { Db, Tx } from './transaction.ts';
import type { AppendedRow } from './outbox.ts';

type RfqRow = Selectable<RfqsTable>;
type QuoteRow = Selectable<QuotesTable>;

export const RFQ_PERP_LOCK_SQL = `
create or replace function rfq_perp_lock(p_rfq text, p_account uuid, p_quote text, p_now int8, p_signer text, p_nonce int8, p_purpose text)
returns jsonb
language plpgsql as $fn$
declare
  v_locked jsonb;
  v_maker uuid;
  v_claimed boolean := true;
begin
  v_locked := rfq_accept_lock(null, null, p_rfq, p_account, p_quote, p_now);
  if not v_locked ? 'rfq' then
    return v_locked;
  end if;
  if v_locked -> 'rfq' ->> 'status' = 'PENDING' then
    select q.maker_account_id into v_maker from quotes q where q.id = p_quote and q.rfq_id = p_rfq;
    if v_maker is not null then
      v_locked := v_locked || jsonb_build_object('protections', rfq_locked_protections(v_maker, v_locked -> 'rfq' ->> 'instrument_id', p_now));
    end if;
  end if;
  if p_signer is not null then
    insert into venue_nonce_claims (signer, nonce, claimed_at, purpose, quote_id)
      values (lower(p_signer), p_nonce, p_now, p_purpose, null)
      on conflict (signer, nonce) do nothing;
    v_claimed := found;
  end if;
  return v_locked || jsonb_build_object('claimed', v_claimed);
end
$fn$;
`;

export const RFQ_PERP_WRITE_SQL = `
create or replace function rfq_perp_write(
  p_now int8, p_execution text, p_lease_owner text, p_phase text, p_columns jsonb, p_calls jsonb,
  p_rfqs jsonb, p_quotes jsonb, p_events jsonb)
returns jsonb
language plpgsql as $fn$
declare
  v_execution jsonb;
  v_rfqs jsonb;
  v_quotes jsonb;
  v_written int;
  v_events jsonb := '[]';
begin
  if p_execution is not null then
    with next as (
      update perp_executions e set
        phase = p_columns ->> 'phase',
        state = p_columns -> 'state',
        signer = case when p_columns ? 'signer' then p_columns ->> 'signer' else e.signer end,
        nonce = case when p_columns ? 'nonce' then (p_columns ->> 'nonce')::int8 else e.nonce end,
        cloid = case when p_columns ? 'cloid' then p_columns ->> 'cloid' else e.cloid end,
        taker_sent_at = case when p_columns ? 'taker_sent_at' then (p_columns ->> 'taker_sent_at')::int8 else e.taker_sent_at end,
        taker_reply_at = case when p_columns ? 'taker_reply_at' then (p_columns ->> 'taker_reply_at')::int8 else e.taker_reply_at end,
        failure_code = case when p_columns ? 'failure_code' then p_columns ->> 'failure_code' else e.failure_code end,
        lease_owner = case when p_columns ? 'lease_owner' then p_columns ->> 'lease_owner' else e.lease_owner end,
        lease_until = (p_columns ->> 'lease_until')::int8,
        next_at = (p_columns ->> 'next_at')::int8,
        updated_at = p_now
      where e.id = p_execution and e.lease_owner = p_lease_owner and e.phase = p_phase
      returning e.*
    )
    select to_jsonb(next) || jsonb_build_object('state', next.state::text) into v_execution from next;
    if v_execution is null then
      return jsonb_build_object('lost', true);
    end if;
    insert into perp_execution_calls (execution_id, kind, quote_id, request, reply, error, started_at, ended_at)
      select p_execution, e.c ->> 'kind', e.c ->> 'quote_id', nullif(e.c -> 'request', 'null'), nullif(e.c -> 'reply', 'null'),
             e.c ->> 'error', (e.c ->> 'started_at')::int8, (e.c ->> 'ended_at')::int8
      from jsonb_array_elements(p_calls) with ordinality as e(c, ord)
      order by e.ord;
  end if;
  with written as (
    update rfqs r set status = d.status, updated_at = p_now,
      quoted_at = case when d.f ? 'quoted_at' then (d.f ->> 'quoted_at')::int8 else r.quoted_at end,
      settled_at = case when d.f ? 'settled_at' then (d.f ->> 'settled_at')::int8 else r.settled_at end,
      selected_quote_id = case when d.f ? 'selected_quote_id' then d.f ->> 'selected_quote_id' else r.selected_quote_id end,
      failure_code = case when d.f ? 'failure_code' then d.f ->> 'failure_code' else r.failure_code end,
      failure_reason = case when d.f ? 'failure_reason' then d.f ->> 'failure_reason' else r.failure_reason end
    from jsonb_to_recordset(p_rfqs) as d(id text, prior text, status text, f jsonb)
    where r.id = d.id and r.status = d.prior
    returning r.*
  )
  select count(*), coalesce(jsonb_agg(to_jsonb(written)), '[]') into v_written, v_rfqs from written;
  if v_written <> jsonb_array_length(p_rfqs) then
    raise exception 'RFQ batch wrote % of % rows: some changed under their locks', v_written, jsonb_array_length(p_rfqs);
  end if;
  with written as (
    update quotes q set status = d.status, updated_at = p_now,
      settlement_deadline_secs = case when d.f ? 'settlement_deadline_secs' then (d.f ->> 'settlement_deadline_secs')::int8 else q.settlement_deadline_secs end,
      position = case when d.f ? 'position' then (d.f ->> 'position')::int4 else q.position end,
      settled_at = case when d.f ? 'settled_at' then (d.f ->> 'settled_at')::int8 else q.settled_at end,
      perp_filled_size = case when d.f ? 'perp_filled_size' then d.f ->> 'perp_filled_size' else q.perp_filled_size end,
      perp_fill_avg_px = case when d.f ? 'perp_fill_avg_px' then d.f ->> 'perp_fill_avg_px' else q.perp_fill_avg_px end,
      perp_maker_filled_size = case when d.f ? 'perp_maker_filled_size' then d.f ->> 'perp_maker_filled_size' else q.perp_maker_filled_size end
    from jsonb_to_recordset(p_quotes) as d(id text, prior text, status text, f jsonb)
    where q.id = d.id and q.status = d.prior
    returning q.*
  )
  select count(*), coalesce(jsonb_agg(to_jsonb(written) || jsonb_build_object('xchange', written.xchange::text)), '[]') into v_written, v_quotes from written;
  if v_written <> jsonb_array_length(p_quotes) then
    raise exception 'quote batch wrote % of % rows: some changed under their locks', v_written, jsonb_array_length(p_quotes);
  end if;
  if jsonb_array_length(p_events) > 0 then
    v_events := rfq_append_events(p_events);
  end if;
  -- The outbox ids and seqs as text: parsed as the driver parses jsonb (numbers as numbers), not exactly.
  return jsonb_build_object('lost', false, 'execution', v_execution, 'rfqs', v_rfqs, 'quotes', v_quotes, 'events', v_events::text);
end
$fn$;
`;

export type ExecutionRow = Selectable<PerpExecutionsTable>;

export const EXECUTION_COLUMNS: NumericColumns<ExecutionRow> = {
  bigints: {},
  numbers: { quote_version: true, nonce: true, taker_sent_at: true, taker_reply_at: true, lease_until: true, next_at: true, created_at: true, updated_at: true },
  json: { state: true },
};

type Json = Record<string, unknown>;

export interface PerpLocked {
  /** The RFQ of the execution, locked; null when there is none. */
  rfq: RfqRow | null;
  quotes: QuoteRow[];
  /** The accepted quote's maker's protection on the instrument (while PENDING), locked and counted. */
  protections: LockedProtection[];
  /** False when the (signer, nonce) asked for was claimed before (by anyone, for anything). */
  claimed: boolean;
}

export async function lockForPerpCommit(
  tx: Tx,
  request: { rfqId: string; accountId: string; quoteId: string; now: number; nonce: { signer: string; nonce: number } | null },
): Promise<PerpLocked> {
  const { rows } = await sql<{ locked: string }>`
    select rfq_perp_lock(${request.rfqId}::text, ${request.accountId}::uuid, ${request.quoteId}::text, ${request.now}::int8,
      ${request.nonce?.signer ?? null}::text, ${request.nonce?.nonce ?? null}::int8, 'takerOrder')::text as locked
  `.execute(tx);
  const locked = parseExactJson<{ rfq?: Json; quotes?: Json[]; protections?: Json[]; claimed?: boolean }>(rows[0]!.locked);
  return {
    rfq: locked.rfq ? decodeRow(locked.rfq, RFQ_COLUMNS) : null,
    quotes: (locked.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)),
    protections: (locked.protections ?? []).map((p) => decodeRow(p, PROTECTION_COLUMNS)),
    claimed: locked.claimed ?? true,
  };
}

/** One row's compare-and-set: from `from` to `to`, with the columns in `fields` (a null sets null). */
export interface RowStatusWrite {
  id: string;
  from: string;
  to: string;
  fields: Record<string, unknown>;
}

export interface PerpWrite {
  now: number;
  /** The execution's transition, guarded by its lease and phase; null: only the RFQ and quotes. */
  execution: { id: string; leaseOwner: string; phase: string; columns: Record<string, unknown>; calls: readonly object[] } | null;
  rfqs: RowStatusWrite[];
  quotes: RowStatusWrite[];
  /** `rfq_append_events`'s argument (outbox.ts `takeAppendedEvents`). */
  events: string;
}

/** The rows as written (null execution: not written, the caller lost it), or `lost`. */
export type PerpWritten = { lost: true } | { lost: false; execution: ExecutionRow | null; rfqs: RfqRow[]; quotes: QuoteRow[]; events: AppendedRow[] };

const statusRows = (writes: RowStatusWrite[]) => JSON.stringify(writes.map((w) => ({ id: w.id, prior: w.from, status: w.to, f: w.fields })));

/** Inside a transaction (`commit`), or alone when it writes only the execution (`commitOwn`). */
export async function writePerpTransition(tx: Tx | Db, write: PerpWrite): Promise<PerpWritten> {
  const e = write.execution;
  const { rows } = await sql<{ written: string }>`
    select rfq_perp_write(${write.now}::int8, ${e?.id ?? null}::text, ${e?.leaseOwner ?? null}::text, ${e?.phase ?? null}::text,
      ${e ? JSON.stringify(e.columns) : null}::jsonb, ${e ? JSON.stringify(e.calls) : '[]'}::jsonb,
      ${statusRows(write.rfqs)}::jsonb, ${statusRows(write.quotes)}::jsonb, ${write.events}::jsonb)::text as written
  `.execute(tx);
  const written = parseExactJson<{ lost: boolean; execution?: Json | null; rfqs?: Json[]; quotes?: Json[]; events?: string }>(rows[0]!.written);
  if (written.lost) return { lost: true };
  return {
    lost: false,
    execution: written.execution ? decodeRow(written.execution, EXECUTION_COLUMNS) : null,
    rfqs: (written.rfqs ?? []).map((r) => decodeRow(r, RFQ_COLUMNS)),
    quotes: (written.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)),
    events: JSON.parse(written.events ?? '[]') as AppendedRow[],
  };
}
