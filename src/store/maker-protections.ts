/**
 * A maker's market-maker protection settings (`maker_protections`), one per instrument: the
 * maker's replacement and reset, the re-arm of frozen trips, and the reads of what is tripped.
 * A selection's own reads and its trip are in protection-selections.ts.
 */
import { sql, type Selectable } from 'kysely';
import type { MakerProtectionsTable } from './schema.ts';
import type { Db, Reader, Tx } from './transaction.ts';

export type ProtectionRow = Selectable<MakerProtectionsTable>;

export interface ProtectionLimitsWrite {
  makerAccountId: string;
  instrumentId: string;
  windowMs: number;
  maxSelectedQuotes: number | null;
  maxSelectedNotional: bigint | null;
  frozenMs: number | null;
  now: number;
}

/** Writes the maker's setting on the instrument; a replacement keeps a trip (only the reset lifts it). */
export async function upsertProtection(db: Db, p: ProtectionLimitsWrite): Promise<ProtectionRow> {
  return db
    .insertInto('maker_protections')
    .values({
      maker_account_id: p.makerAccountId,
      instrument_id: p.instrumentId,
      window_ms: p.windowMs,
      max_selected_quotes: p.maxSelectedQuotes,
      max_selected_notional: p.maxSelectedNotional,
      triggered_at: null,
      trigger_reason: null,
      updated_at: p.now,
      frozen_ms: p.frozenMs,
    })
    .onConflict((oc) =>
      oc.columns(['maker_account_id', 'instrument_id']).doUpdateSet({
        window_ms: p.windowMs,
        max_selected_quotes: p.maxSelectedQuotes,
        max_selected_notional: p.maxSelectedNotional,
        updated_at: p.now,
        frozen_ms: p.frozenMs,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The maker's settings in instrument order. */
export async function protectionsOf(db: Reader, makerAccountId: string): Promise<ProtectionRow[]> {
  return db.selectFrom('maker_protections').selectAll().where('maker_account_id', '=', makerAccountId).orderBy('instrument_id').execute();
}

/** When and why the maker's setting on the instrument tripped; undefined while armed or absent. */
export async function trippedProtection(db: Reader, makerAccountId: string, instrumentId: string): Promise<{ triggered_at: number | null; trigger_reason: string | null } | undefined> {
  return db
    .selectFrom('maker_protections')
    .select(['triggered_at', 'trigger_reason'])
    .where('maker_account_id', '=', makerAccountId)
    .where('instrument_id', '=', instrumentId)
    .where('triggered_at', 'is not', null)
    .executeTakeFirst();
}

/** The (maker, instrument) of every tripped setting (a partial index: nearly always none). */
export async function trippedProtectionPairs(db: Reader): Promise<Array<{ maker_account_id: string; instrument_id: string }>> {
  return db.selectFrom('maker_protections').select(['maker_account_id', 'instrument_id']).where('triggered_at', 'is not', null).execute();
}

/** The tripped settings whose `frozen_ms` has passed by `now`. */
export async function frozenProtectionsDue(db: Reader, now: number): Promise<Array<{ maker_account_id: string; instrument_id: string }>> {
  return db
    .selectFrom('maker_protections')
    .select(['maker_account_id', 'instrument_id'])
    .where('triggered_at', 'is not', null)
    .where('frozen_ms', 'is not', null)
    .where(sql<boolean>`triggered_at + frozen_ms <= ${now}`)
    .execute();
}

/**
 * Clears the setting's trip and deletes the selections it counted (they would trip it again at
 * once); with `frozenUntil`, only a trip whose freeze has passed by then. Undefined when no such
 * setting: nothing is deleted then.
 */
export async function rearmProtection(tx: Tx, target: { makerAccountId: string; instrumentId: string; now: number; frozenUntil: number | null }): Promise<ProtectionRow | undefined> {
  const row = await tx
    .updateTable('maker_protections')
    .set({ triggered_at: null, trigger_reason: null, updated_at: target.now })
    .where('maker_account_id', '=', target.makerAccountId)
    .where('instrument_id', '=', target.instrumentId)
    .where(sql<boolean>`(${target.frozenUntil}::int8 is null or triggered_at + frozen_ms <= ${target.frozenUntil}::int8)`)
    .returningAll()
    .executeTakeFirst();
  if (row) await tx.deleteFrom('maker_protection_selections').where('maker_account_id', '=', target.makerAccountId).where('instrument_id', '=', target.instrumentId).execute();
  return row;
}
