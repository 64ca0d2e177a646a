/**
 * The double-entry ledger (DESIGN.md section 3). A movement is a set of postings summing to zero
 * per token; user-book postings also move the balance projection in the same transaction, so a
 * balance always equals the sum of that user's postings. Locks move funds between `available`
 * and `locked` without a ledger entry (the total does not change) and belong to exactly one owner.
 */
import { sql, type Selectable } from 'kysely';
import { ServiceError } from '../domain/errors.ts';
import { assertBalanced, type Posting, type Rail } from '../domain/ledger/index.ts';
import type { BalancesTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

export type { Book, LedgerSource, Posting, Rail } from '../domain/ledger/index.ts';
export { assertBalanced } from '../domain/ledger/index.ts';

/** A row of the balance projection (the `balances` table), whoever read it. */
export type BalanceRow = Selectable<BalancesTable>;

/** One account's balance rows in (token, rail) order: what a balances answer and frame list. */
export function readBalanceRows(db: Reader, accountId: string): Promise<BalanceRow[]> {
  return db.selectFrom('balances').selectAll().where('account_id', '=', accountId).orderBy('token').orderBy('rail').execute();
}

/** The account's balance row of one token on one rail (it exists once a movement touched it). */
export function readBalanceRow(db: Reader, accountId: string, token: string, rail: Rail): Promise<BalanceRow> {
  return db.selectFrom('balances').selectAll().where('account_id', '=', accountId).where('token', '=', token).where('rail', '=', rail).executeTakeFirstOrThrow();
}

export interface Movement {
  movementId: string;
  kind: string;
  reference?: string;
  memo?: string;
  postings: Posting[];
  /** Ids for the postings, one per posting, in order. */
  postingIds: string[];
  at: number;
}

/**
 * Applies a user delta to the projection in one statement; refuses (INSUFFICIENT_BALANCE) rather
 * than go negative. A credit creates the balance row if it is missing (an upsert); a debit needs
 * the row to exist and hold enough (a missing row holds nothing).
 */
async function applyUserDelta(tx: Tx, posting: Posting): Promise<void> {
  const accountId = posting.accountId;
  if (!accountId) throw new Error('user posting without account');
  const column = posting.fromLocked ? 'locked' : 'available';
  const result =
    posting.delta >= 0n
      ? await tx
          .insertInto('balances')
          .values({ account_id: accountId, token: posting.token, rail: posting.rail, available: posting.fromLocked ? 0n : posting.delta, locked: posting.fromLocked ? posting.delta : 0n })
          .onConflict((oc) => oc.columns(['account_id', 'token', 'rail']).doUpdateSet({ [column]: sql`${sql.ref(`balances.${column}`)} + ${posting.delta}` }))
          .executeTakeFirst()
          .then((r) => r.numInsertedOrUpdatedRows)
      : await tx
          .updateTable('balances')
          .set({ [column]: sql`${sql.ref(column)} + ${posting.delta}` })
          .where('account_id', '=', accountId)
          .where('token', '=', posting.token)
          .where('rail', '=', posting.rail)
          .where(sql.ref(column), '>=', -posting.delta)
          .executeTakeFirst()
          .then((r) => r.numUpdatedRows);
  if (result !== 1n) {
    throw new ServiceError('INSUFFICIENT_BALANCE', `insufficient ${posting.token} balance`, { token: posting.token });
  }
}

export async function postMovement(tx: Tx, movement: Movement): Promise<void> {
  assertBalanced(movement.postings);
  if (movement.postingIds.length !== movement.postings.length) throw new Error('one posting id per posting');
  await tx
    .insertInto('ledger_movements')
    .values({
      movement_id: movement.movementId,
      kind: movement.kind,
      reference: movement.reference ?? null,
      memo: movement.memo ?? null,
      created_at: movement.at,
    })
    .execute();
  for (const posting of movement.postings) {
    if (posting.book === 'user') {
      await applyUserDelta(tx, posting);
    }
  }
  await tx
    .insertInto('ledger_postings')
    .values(
      movement.postings.map((p, i) => ({
        posting_id: movement.postingIds[i]!,
        movement_id: movement.movementId,
        book: p.book,
        account_id: p.accountId ?? null,
        token: p.token,
        rail: p.rail,
        delta: p.delta,
        source: p.source,
        created_at: movement.at,
      })),
    )
    .execute();
}

export interface LockRequest {
  lockId: string;
  accountId: string;
  token: string;
  rail: Rail;
  amount: bigint;
  /** `sweep_leg`: one selected quote of a SWEEP RFQ (its id), locked per leg. */
  ownerKind: 'rfq' | 'withdrawal' | 'order' | 'v0_withdrawal' | 'sweep_leg';
  ownerId: string;
  at: number;
}

/** The lock's amount must be positive: a zero lock is a bug, not an insufficient balance. */
export function assertLockAmount(lock: Pick<LockRequest, 'amount'>): void {
  if (lock.amount <= 0n) throw new Error('lock amount must be positive');
}

export function insufficientBalance(token: string): ServiceError {
  return new ServiceError('INSUFFICIENT_BALANCE', `insufficient available ${token} to lock`, { token });
}

/** Moves `amount` from available to locked for one owner; INSUFFICIENT_BALANCE if not covered. */
export async function lockFunds(tx: Tx, lock: LockRequest): Promise<void> {
  assertLockAmount(lock);
  const result = await sql<{ taken: boolean }>`
    select rfq_lock_funds(${lock.lockId}::uuid, ${lock.accountId}::uuid, ${lock.token}, ${lock.rail}, ${lock.amount.toString()}::numeric, ${lock.ownerKind}, ${lock.ownerId}, ${lock.at}::int8) as taken
  `.execute(tx);
  if (result.rows[0]?.taken !== true) throw insufficientBalance(lock.token);
}

export interface LiveLock {
  lockId: string;
  accountId: string;
  token: string;
  rail: Rail;
  amount: bigint;
}

/** Ends the owner's live lock. `release` returns the funds to available; `consume` leaves them in
 * `locked` for the caller's ledger movement to debit (fromLocked postings). */
export async function endLock(
  tx: Tx,
  ownerKind: LockRequest['ownerKind'],
  ownerId: string,
  how: 'release' | 'consume',
  reason: string,
  at: number,
): Promise<LiveLock | null> {
  const row = await tx
    .updateTable('locks')
    .set({ released_at: at, release_reason: reason })
    .where('owner_kind', '=', ownerKind)
    .where('owner_id', '=', ownerId)
    .where('released_at', 'is', null)
    .returning(['lock_id', 'account_id', 'token', 'rail', 'amount'])
    .executeTakeFirst();
  if (!row) return null;
  const lock: LiveLock = { lockId: row.lock_id, accountId: row.account_id, token: row.token, rail: row.rail as Rail, amount: row.amount };
  if (how === 'release') await returnToAvailable(tx, lock, lock.amount);
  return lock;
}

/**
 * Moves `amount` of an ended lock from `locked` back to `available`: all of it on a release, or
 * the part of a consumed lock that the caller's movement did not debit.
 */
export async function returnToAvailable(tx: Tx, lock: LiveLock, amount: bigint): Promise<void> {
  if (amount <= 0n) return;
  if (amount > lock.amount) throw new Error(`cannot return ${amount} of lock ${lock.lockId} (${lock.amount})`);
  await tx
    .updateTable('balances')
    .set({ available: sql`available + ${amount}`, locked: sql`locked - ${amount}` })
    .where('account_id', '=', lock.accountId)
    .where('token', '=', lock.token)
    .where('rail', '=', lock.rail)
    .execute();
}

export interface LockChange {
  ownerId: string;
  /** The lock that replaces the owner's live one (same account, token, rail), or null to release. */
  replacement: { lockId: string; amount: bigint } | null;
  reason: string;
}

/** The arguments of `rfq_relock_many` after `p_at`, in order. */
export function relockArguments(changes: LockChange[]): [string[], string[], Array<string | null>, Array<string | null>] {
  return [
    changes.map((c) => c.ownerId),
    changes.map((c) => c.reason),
    changes.map((c) => c.replacement?.lockId ?? null),
    changes.map((c) => (c.replacement ? c.replacement.amount.toString() : null)),
  ];
}

export async function relockMany(tx: Tx, changes: LockChange[], at: number): Promise<Map<string, LiveLock>> {
  const ended = new Map<string, LiveLock>();
  if (changes.length === 0) return ended;
  const [owners, reasons, lockIds, kept] = relockArguments(changes);
  const { rows } = await sql<{ owner_id: string; lock_id: string; account_id: string; token: string; rail: string; amount: bigint }>`
    select * from rfq_relock_many(${at}::int8, ${owners}::text[], ${reasons}::text[], ${lockIds}::uuid[], ${kept}::numeric[])
  `.execute(tx);
  for (const row of rows) ended.set(row.owner_id, { lockId: row.lock_id, accountId: row.account_id, token: row.token, rail: row.rail as Rail, amount: row.amount });
  return ended;
}

/**
 * The part of an owner's live lock that a `fromLocked` debit in the same transaction consumed:
 * the lock shrinks by `amount` and ends when nothing is left, so `locked` keeps equalling the sum
 * of live locks while an order fills piece by piece.
 */
export async function consumeFromLock(tx: Tx, ownerKind: LockRequest['ownerKind'], ownerId: string, amount: bigint, at: number): Promise<void> {
  if (amount <= 0n) return;
  // One statement: the lock shrinks, and ends when it is used up (a lock too small is no row).
  const consumed = await tx
    .updateTable('locks')
    .set({
      amount: sql`case when amount = ${amount} then amount else amount - ${amount} end`,
      released_at: sql`case when amount = ${amount} then ${at}::int8 else null end`,
      release_reason: sql`case when amount = ${amount} then 'consumed' else null end`,
    })
    .where('owner_kind', '=', ownerKind)
    .where('owner_id', '=', ownerId)
    .where('released_at', 'is', null)
    .where('amount', '>=', amount)
    .executeTakeFirst();
  if (consumed.numUpdatedRows !== 1n) throw new Error(`lock of ${ownerKind} ${ownerId} does not cover ${amount}`);
}
