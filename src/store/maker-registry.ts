/**
 * The maker registry's rows (`makers`): registration by the operator, and the operator's reads of
 * it by address (with its suspension and failures). Suspensions are written by the settlement
 * failure policy, not here.
 */
import type { Selectable } from 'kysely';
import type { MakersTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

export type MakerRow = Selectable<MakersTable>;

export interface MakerRegistration {
  newMakerId: string;
  accountId: string;
  active: boolean;
  pairs: readonly string[];
  settlementModes: readonly string[];
  spender: string | null;
  adapterSigner: string | null;
  /** Lifts a suspension on an existing maker. */
  liftSuspension: boolean;
  now: number;
}

/** Registers the account as a maker, or updates its registration; the row as written. */
export async function upsertMaker(tx: Tx, m: MakerRegistration): Promise<MakerRow> {
  const pairs = JSON.stringify(m.pairs);
  const modes = JSON.stringify(m.settlementModes);
  return tx
    .insertInto('makers')
    .values({ maker_id: m.newMakerId, account_id: m.accountId, active: m.active, pairs, settlement_modes: modes, spender: m.spender, adapter_signer: m.adapterSigner, suspended_until: null, created_at: m.now, updated_at: m.now })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        active: m.active,
        pairs,
        settlement_modes: modes,
        spender: m.spender,
        adapter_signer: m.adapterSigner,
        updated_at: m.now,
        ...(m.liftSuspension ? { suspended_until: null } : {}),
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The maker id of the maker at `address`, if any. */
export async function makerIdByAddress(db: Reader, address: string): Promise<string | undefined> {
  const row = await db.selectFrom('makers').innerJoin('accounts', 'accounts.id', 'makers.account_id').select('makers.maker_id').where('accounts.address', '=', address).executeTakeFirst();
  return row?.maker_id;
}

export async function makerById(db: Reader, makerId: string): Promise<MakerRow> {
  return db.selectFrom('makers').selectAll().where('maker_id', '=', makerId).executeTakeFirstOrThrow();
}

/** The maker row of the account, if it is a maker (read per request: suspensions must bite at once). */
export async function makerOfAccount(db: Reader, accountId: string): Promise<MakerRow | undefined> {
  return db.selectFrom('makers').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** The maker row of the maker at `address`, if any. */
export async function makerByAddress(db: Reader, address: string): Promise<MakerRow | undefined> {
  return db.selectFrom('makers').innerJoin('accounts', 'accounts.id', 'makers.account_id').selectAll('makers').where('accounts.address', '=', address).executeTakeFirst();
}

/** Every maker with its address, in registration order. */
export async function makersWithAddress(db: Reader): Promise<Array<MakerRow & { address: string }>> {
  return db.selectFrom('makers').innerJoin('accounts', 'accounts.id', 'makers.account_id').selectAll('makers').select('accounts.address').orderBy('makers.created_at').execute();
}

/** The maker at `address` with its suspension state, if any. */
export async function makerSuspensionByAddress(db: Reader, address: string) {
  return db
    .selectFrom('makers')
    .innerJoin('accounts', 'accounts.id', 'makers.account_id')
    .select(['makers.maker_id', 'makers.suspended_until', 'makers.suspension_count', 'makers.last_suspended_at'])
    .where('accounts.address', '=', address)
    .executeTakeFirst();
}

/** The maker's recorded failures, newest first, at most `limit`. */
export async function recentMakerFailures(db: Reader, makerId: string, limit: number) {
  return db.selectFrom('maker_failures').selectAll().where('maker_id', '=', makerId).orderBy('created_at', 'desc').orderBy('quote_id', 'desc').limit(limit).execute();
}
