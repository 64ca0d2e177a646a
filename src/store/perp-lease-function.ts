/**
 * A perp execution's lease, and what its checks read, in one call of a PL/pgSQL function
 * (`rfq_perp_acquire`, src/store/sql/rfq_perp_acquire.sql). As a plain statement the same update and
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
import { decodeRow, parseExactJson, type NumericColumns } from './json-rows.ts';
import { EXECUTION_COLUMNS, type ExecutionRow } from './perp-commit-functions.ts';
import type { Db } from './transaction.ts';

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
