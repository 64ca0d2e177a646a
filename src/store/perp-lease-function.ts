/**
 * A perp execution's lease, and what its checks read, in one call of a PL/pgSQL function
 * (`rfq_perp_acquire`, migration 0180). As a plain statement the same update and
 * six-table read cost about 3.6 ms a call on PGlite, nearly all of it parsing and planning on the
 * node's own thread; the function keeps its plans.
 *
 * The lease is taken only if no one else holds the execution, it has not ended and it is due (the
 * row locked FOR UPDATE SKIP LOCKED, so a node that finds it locked moves on). An execution still
 * in `checking` comes back with what the checks read (`ChecksRead`): the RFQ and the quote, each
 * with its account's address (the taker's; the maker's, for its order), and the maker's signed
 * order and cancel.
 */
import { sql } from 'kysely';
import type { Side } from '../domain/rfq/types.ts';
import { TERMINAL_EXECUTION_PHASES } from '../domain/perp/execution.ts';
import { GENERIC_PLANS } from './generic-plans.ts';
import { decodeRow, parseExactJson, type NumericColumns } from './json-rows.ts';
import { EXECUTION_COLUMNS, type ExecutionRow } from './perp-commit-functions.ts';
import type { Db } from './transaction.ts';

export const RFQ_PERP_ACQUIRE_SQL = `
create or replace function rfq_perp_acquire(p_id text, p_owner text, p_now int8, p_until int8, p_terminal text[])
returns text
language plpgsql ${GENERIC_PLANS} as $fn$
declare
  v_row perp_executions;
  v_checks jsonb;
begin
  update perp_executions set lease_owner = p_owner, lease_until = p_until
    where id = (
      select id from perp_executions
      where id = p_id and phase <> all(p_terminal) and next_at <= p_now and lease_until <= p_now
      for update skip locked)
    returning * into v_row;
  if v_row.id is null then
    return null;
  end if;
  if v_row.phase = 'checking' then
    select jsonb_build_object(
        'account_id', r.account_id, 'instrument_id', r.instrument_id, 'side', r.side, 'taker_fee_tenth_bp', r.taker_fee_tenth_bp,
        'taker_address', ta.address, 'maker_account_id', q.maker_account_id,
        'maker_pays_amount', q.maker_pays_amount, 'maker_receives_amount', q.maker_receives_amount,
        'maker_address', ma.address, 'maker_order', o.maker_order, 'maker_cancel', o.maker_cancel)
      into v_checks
      from rfqs r
      join accounts ta on ta.id = r.account_id
      join quotes q on q.id = v_row.quote_id
      join accounts ma on ma.id = q.maker_account_id
      left join perp_quote_orders o on o.quote_id = q.id
      where r.id = v_row.rfq_id;
  end if;
  -- The state as its text, parsed as the driver parses a JSON column (json-rows.ts).
  return jsonb_build_object('execution', to_jsonb(v_row) || jsonb_build_object('state', v_row.state::text), 'checks', v_checks)::text;
end
$fn$;
`;

/** What the checks of an execution in `checking` read (see above). */
export interface ChecksRead {
  account_id: string;
  instrument_id: string;
  side: Side;
  taker_fee_tenth_bp: number;
  taker_address: string;
  maker_account_id: string;
  maker_pays_amount: bigint;
  maker_receives_amount: bigint;
  maker_address: string;
  maker_order: string | null;
  maker_cancel: string | null;
}

const CHECKS_COLUMNS: NumericColumns<ChecksRead> = {
  bigints: { maker_pays_amount: true, maker_receives_amount: true },
  numbers: { taker_fee_tenth_bp: true },
};

/** The execution as leased (with its checks' read while in `checking`), or null when it was not taken. */
export async function acquirePerpExecution(db: Db, lease: { id: string; owner: string; now: number; until: number }): Promise<{ row: ExecutionRow; checksRead: ChecksRead | null } | null> {
  const { rows } = await sql<{ taken: string | null }>`select rfq_perp_acquire(${lease.id}::text, ${lease.owner}::text, ${lease.now}::int8, ${lease.until}::int8, ${TERMINAL_EXECUTION_PHASES}::text[]) as taken`.execute(db);
  const taken = rows[0]?.taken ?? null;
  if (taken === null) return null;
  // Exact numbers (json-rows.ts): each turned back by its column's type.
  const { execution, checks } = parseExactJson<{ execution: Record<string, unknown>; checks: Record<string, unknown> | null }>(taken);
  return { row: decodeRow(execution, EXECUTION_COLUMNS), checksRead: checks === null ? null : decodeRow(checks, CHECKS_COLUMNS) };
}
