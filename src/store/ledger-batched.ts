/**
 * The ledger's movements and lock changes with their balance changes gathered and applied last,
 * in one statement (for paths that post several in one transaction, like a `/v0` order's fills).
 * The balance rows are what concurrent transactions of the same account queue on; applied last,
 * they are held for one statement and the commit instead of the whole transaction. The rules are
 * those of ledger.ts: postings sum to zero per token, a user's balance never goes negative (the
 * whole change is refused with INSUFFICIENT_BALANCE), `locked` equals the sum of live locks.
 */
import { sql } from 'kysely';
import { ServiceError } from '../domain/errors.ts';
import { assertBalanced } from '../domain/ledger/index.ts';
import type { LockRequest, Movement, Rail } from './ledger.ts';
import type { Tx } from './transaction.ts';

/** A change of one user balance row: both columns at once. */
export interface BalanceDelta {
  accountId: string;
  token: string;
  rail: Rail;
  available: bigint;
  locked: bigint;
}

/**
 * Inserts a movement and its postings (one statement) and returns its user-book deltas, for the
 * caller to apply with `applyBalanceDeltas` before it commits.
 */
export async function recordMovement(tx: Tx, movement: Movement): Promise<BalanceDelta[]> {
  assertBalanced(movement.postings);
  if (movement.postingIds.length !== movement.postings.length) throw new Error('one posting id per posting');
  const p = movement.postings;
  await sql`
    with movement as (
      insert into ledger_movements (movement_id, kind, reference, memo, created_at)
      values (${movement.movementId}::uuid, ${movement.kind}, ${movement.reference ?? null}, ${movement.memo ?? null}, ${movement.at}::int8)
    )
    insert into ledger_postings (posting_id, movement_id, book, account_id, token, rail, delta, source, created_at)
    select posting_id, ${movement.movementId}::uuid, book, account_id, token, rail, delta, source, ${movement.at}::int8
    from unnest(${movement.postingIds}::uuid[], ${p.map((x) => x.book)}::text[], ${p.map((x) => x.accountId ?? null)}::uuid[], ${p.map((x) => x.token)}::text[],
      ${p.map((x) => x.rail)}::text[], ${p.map((x) => x.delta.toString())}::numeric[], ${p.map((x) => x.source)}::text[])
      as t(posting_id, book, account_id, token, rail, delta, source)
  `.execute(tx);
  return p.flatMap((posting) => {
    if (posting.book !== 'user') return [];
    if (!posting.accountId) throw new Error('user posting without account');
    return [{ accountId: posting.accountId, token: posting.token, rail: posting.rail, available: posting.fromLocked ? 0n : posting.delta, locked: posting.fromLocked ? posting.delta : 0n }];
  });
}

/**
 * Shrinks the owner's live lock by what its fills consumed (one statement), and ends it when it
 * is used up or when `end` says the owner is finished; the part of an ended lock nothing consumed
 * goes back to available (returned as a delta for `applyBalanceDeltas`).
 * @throws Error when the owner has no live lock covering `consumed` (a bug, never user input)
 */
export async function consumeAndMaybeEndLock(tx: Tx, ownerKind: LockRequest['ownerKind'], ownerId: string, consumed: bigint, end: { reason: string } | null, at: number): Promise<BalanceDelta[]> {
  if (consumed === 0n && end === null) return [];
  const ends = end !== null;
  const row = await tx
    .updateTable('locks')
    .set({
      amount: sql`case when ${ends} or amount = ${consumed} then amount else amount - ${consumed} end`,
      released_at: sql`case when ${ends} or amount = ${consumed} then ${at}::int8 else null end`,
      release_reason: sql`case when ${ends} then ${end?.reason ?? null}::text when amount = ${consumed} then 'consumed' else null end`,
    })
    .where('owner_kind', '=', ownerKind)
    .where('owner_id', '=', ownerId)
    .where('released_at', 'is', null)
    .where('amount', '>=', consumed)
    .returning(['account_id', 'token', 'rail', 'amount'])
    .executeTakeFirst();
  if (!row) {
    if (consumed === 0n) return [];
    throw new Error(`lock of ${ownerKind} ${ownerId} does not cover ${consumed}`);
  }
  const rest = ends ? row.amount - consumed : 0n;
  return rest > 0n ? [{ accountId: row.account_id, token: row.token, rail: row.rail as Rail, available: rest, locked: -rest }] : [];
}

/**
 * Applies balance deltas, netted per row, in one statement (the rows are held from here to the
 * commit only): a row with a debit must exist and cover it; a row only credited is created if
 * missing (an upsert). Refuses with INSUFFICIENT_BALANCE (the caller's transaction is then
 * rolled back) if any row would go negative.
 */
export async function applyBalanceDeltas(tx: Tx, deltas: BalanceDelta[]): Promise<void> {
  const net = new Map<string, BalanceDelta>();
  for (const d of deltas) {
    const key = `${d.accountId}|${d.token}|${d.rail}`;
    const entry = net.get(key) ?? { ...d, available: 0n, locked: 0n };
    entry.available += d.available;
    entry.locked += d.locked;
    net.set(key, entry);
  }
  // Key order, so that callers meet the rows in the same order.
  const rows = [...net.entries()].filter(([, d]) => d.available !== 0n || d.locked !== 0n).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
  if (rows.length === 0) return;
  const result = await sql<{ token: string }>`
    with d as (
      select * from unnest(${rows.map((d) => d.accountId)}::uuid[], ${rows.map((d) => d.token)}::text[], ${rows.map((d) => d.rail)}::text[],
        ${rows.map((d) => d.available.toString())}::numeric[], ${rows.map((d) => d.locked.toString())}::numeric[]) with ordinality
        as d(account_id, token, rail, available, locked, n)
    ), debited as (
      update balances b set available = b.available + d.available, locked = b.locked + d.locked
      from d
      where b.account_id = d.account_id and b.token = d.token and b.rail = d.rail and (d.available < 0 or d.locked < 0)
        and b.available + d.available >= 0 and b.locked + d.locked >= 0
      returning b.token
    ), credited as (
      insert into balances (account_id, token, rail, available, locked)
      select account_id, token, rail, available, locked from d where d.available >= 0 and d.locked >= 0 order by n
      on conflict (account_id, token, rail) do update set available = balances.available + excluded.available, locked = balances.locked + excluded.locked
      returning token
    )
    select token from debited union all select token from credited
  `.execute(tx);
  if (result.rows.length !== rows.length) {
    const written = result.rows.map((r) => r.token);
    const token = rows.find((d) => !written.includes(d.token))?.token ?? rows[0]!.token;
    throw new ServiceError('INSUFFICIENT_BALANCE', `insufficient ${token} balance`, { token });
  }
}
