/**
 * The balance rows a `balances` frame is built from, read so that the frame numbered last for an
 * account always shows everything committed before it.
 *
 * Two transactions may change different balance rows of one account at once (a lock released by
 * an auction's close while a deposit credits another token). Each reads the account's rows for
 * its frame while the other is uncommitted, so a frame read that way can miss the other's change;
 * if it is then numbered after the other's frame, the account's last snapshot stays stale until
 * its next change (found by the simulation, seed 5017 on PostgreSQL). So the rows are read under
 * a per-account transaction lock held to the commit: a second reader waits until the first has
 * committed (and numbered its frame), then reads in a fresh snapshot that includes it. The
 * frame's `seq` is taken after this read, in the same transaction, so frames in `seq` order
 * show states in commit order.
 *
 * The lock is a transaction-level advisory lock, taken by account id order, and only ever waited
 * for here: a holder goes on only to number its frames and commit. `rfq_accept_write` and
 * `rfq_close_write` call this function for the balances they answer (accept-functions.ts,
 * close-functions.ts); every other writer reads through `readBalanceFrameRows` when it writes its
 * frames (outbox.ts).
 */
import { sql } from 'kysely';
import { decodeRow, parseExactJson } from './json-rows.ts';
import type { BalanceRow } from './ledger.ts';
import { BALANCE_COLUMNS } from './row-columns.ts';
import type { Tx } from './transaction.ts';

/** The accounts' balance rows, read under their frame locks (above), in (account, token, rail) order. */
export async function readBalanceFrameRows(tx: Tx, accountIds: readonly string[]): Promise<BalanceRow[]> {
  if (accountIds.length === 0) return [];
  const { rows } = await sql<{ rows: string }>`select rfq_balance_frame_rows(${[...accountIds]}::uuid[])::text as rows`.execute(tx);
  return decodeBalanceFrameRows(parseExactJson<Array<Record<string, unknown>>>(rows[0]!.rows));
}

/** Rows a write function answered as JSON (parsed with `parseExactJson`). */
export function decodeBalanceFrameRows(json: ReadonlyArray<Record<string, unknown>>): BalanceRow[] {
  return json.map((b) => decodeRow(b, BALANCE_COLUMNS));
}
