/**
 * The perp part of an accept's write in one PL/pgSQL call, `rfq_perp_record_accept` (migration
 * 0180; as a plain statement, its parse and plan were most of its cost on PGlite): the
 * execution of the RFQ still in `checking` if there is one, else the new one, recorded. The caller
 * holds the RFQ's row lock, which serialises the accepts of one RFQ (accept-perp.ts).
 */
import { sql } from 'kysely';
import { GENERIC_PLANS } from './generic-plans.ts';
import type { Tx } from './transaction.ts';

export const RFQ_PERP_RECORD_ACCEPT_SQL = `
create or replace function rfq_perp_record_accept(p_id text, p_rfq text, p_quote text, p_account uuid, p_version int8, p_order text, p_state jsonb, p_now int8)
returns table (open_id text, open_quote_id text, open_quote_version int8)
language plpgsql ${GENERIC_PLANS} as $fn$
begin
  select e.id, e.quote_id, e.quote_version into open_id, open_quote_id, open_quote_version
    from perp_executions e where e.rfq_id = p_rfq and e.phase = 'checking';
  if open_id is null then
    insert into perp_executions (id, rfq_id, quote_id, account_id, quote_version, taker_order, phase, state, next_at, created_at, updated_at)
      values (p_id, p_rfq, p_quote, p_account, p_version, p_order, 'checking', p_state, p_now, p_now, p_now);
  end if;
  return next;
end
$fn$;
`;

/** The execution already in `checking` for this RFQ (nothing recorded), or null when `id` was recorded. */
export async function recordPerpExecution(
  tx: Tx,
  execution: { id: string; rfqId: string; quoteId: string; accountId: string; quoteVersion: number; takerOrder: string; state: unknown; now: number },
): Promise<{ id: string; quoteId: string; quoteVersion: number } | null> {
  const e = execution;
  const { rows } = await sql<{ open_id: string | null; open_quote_id: string | null; open_quote_version: number | null }>`
    select * from rfq_perp_record_accept(${e.id}::text, ${e.rfqId}::text, ${e.quoteId}::text, ${e.accountId}::uuid, ${e.quoteVersion}::int8, ${e.takerOrder}::text, ${JSON.stringify(e.state)}::jsonb, ${e.now}::int8)
  `.execute(tx);
  const open = rows[0];
  return open && open.open_id !== null ? { id: open.open_id, quoteId: open.open_quote_id!, quoteVersion: Number(open.open_quote_version) } : null;
}
