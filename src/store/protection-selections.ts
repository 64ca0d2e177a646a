/**
 * The rows of market-maker protection that a selection touches (src/services/protection/
 * selection-guard.ts): the protection settings it locks, the selections counted in their window,
 * and the trip it may write. The accepts and the auction close lock and count the same rows in
 * their own SQL calls (accept-functions.ts, close-functions.ts).
 */
import { sql } from 'kysely';
import type { MakerProtectionsTable } from './schema.ts';
import type { Tx } from './transaction.ts';

/** A protection setting as a selection reads it. */
export type GuardedProtection = Pick<MakerProtectionsTable, 'maker_account_id' | 'instrument_id' | 'window_ms' | 'max_selected_quotes' | 'max_selected_notional' | 'triggered_at'>;

/**
 * The settings of these (maker, instrument) pairs FOR UPDATE, in key order (the order every
 * selection locks them in, after the RFQ and quote rows); pairs without a setting are left out.
 */
export async function lockProtections(tx: Tx, pairs: ReadonlyArray<{ makerAccountId: string; instrumentId: string }>): Promise<GuardedProtection[]> {
  const rows = await sql<GuardedProtection>`
    select p.maker_account_id, p.instrument_id, p.window_ms, p.max_selected_quotes, p.max_selected_notional, p.triggered_at
    from maker_protections p
    join unnest(${pairs.map((p) => p.makerAccountId)}::uuid[], ${pairs.map((p) => p.instrumentId)}::text[]) as k(maker, instrument)
      on p.maker_account_id = k.maker and p.instrument_id = k.instrument
    order by p.maker_account_id, p.instrument_id
    for update of p
  `.execute(tx);
  return rows.rows;
}

/** How many selections of the maker on the instrument were counted after `after`, and their notional. */
export async function selectionsAfter(tx: Tx, makerAccountId: string, instrumentId: string, after: number): Promise<{ count: number; notional: bigint }> {
  const row = await tx
    .selectFrom('maker_protection_selections')
    .select((eb) => [eb.fn.countAll<string>().as('count'), sql<string | null>`sum(notional)`.as('notional')])
    .where('maker_account_id', '=', makerAccountId)
    .where('instrument_id', '=', instrumentId)
    .where('selected_at', '>', after)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), notional: BigInt(row.notional ?? 0) };
}

/**
 * Records selections of the maker on the instrument at `now`, first dropping those that fell out
 * of the window (`windowMs`); a quote already counted is counted once.
 */
export async function recordSelections(
  tx: Tx,
  target: { makerAccountId: string; instrumentId: string; windowMs: number },
  selections: ReadonlyArray<{ quoteId: string; notional: bigint }>,
  now: number,
): Promise<void> {
  await tx.deleteFrom('maker_protection_selections')
    .where('maker_account_id', '=', target.makerAccountId)
    .where('instrument_id', '=', target.instrumentId)
    .where('selected_at', '<=', now - target.windowMs)
    .execute();
  await tx.insertInto('maker_protection_selections')
    .values(selections.map((c) => ({ quote_id: c.quoteId, maker_account_id: target.makerAccountId, instrument_id: target.instrumentId, notional: c.notional, selected_at: now })))
    .onConflict((oc) => oc.column('quote_id').doNothing())
    .execute();
}

/** Trips the maker's setting on the instrument at `now`, naming the limit it reached. */
export async function tripProtection(tx: Tx, makerAccountId: string, instrumentId: string, reason: string, now: number): Promise<void> {
  await tx.updateTable('maker_protections')
    .set({ triggered_at: now, trigger_reason: reason, updated_at: now })
    .where('maker_account_id', '=', makerAccountId)
    .where('instrument_id', '=', instrumentId)
    .execute();
}
