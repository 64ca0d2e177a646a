/**
 * The ledger's invariants (DESIGN.md section 3), each one SQL query returning its violations:
 * every movement balances per token; no balance below zero; each user balance equals the sum
 * of that user's postings; locked equals the sum of live locks; each live lock has a live owner.
 * At most 100 violations a check.
 */
import { sql } from 'kysely';
import type { Reader } from './transaction.ts';

export interface Violation { check: string; detail: Record<string, unknown> }

const checks: Array<{ name: string; query: ReturnType<typeof sql<Record<string, unknown>>> }> = [
  {
    name: 'movementBalances',
    query: sql`select movement_id, token, sum(delta)::text as sum from ledger_postings group by movement_id, token having sum(delta) <> 0 limit 100`,
  },
  {
    name: 'nonNegativeBalances',
    query: sql`select account_id, token, rail, available::text, locked::text from balances where available < 0 or locked < 0 limit 100`,
  },
  {
    name: 'balanceEqualsPostings',
    query: sql`
      select coalesce(b.account_id, p.account_id) as account_id, coalesce(b.token, p.token) as token, coalesce(b.rail, p.rail) as rail,
             coalesce(b.available + b.locked, 0)::text as balance, coalesce(p.total, 0)::text as postings
      from balances b
      full outer join (select account_id, token, rail, sum(delta) as total from ledger_postings where book = 'user' group by account_id, token, rail) p
        on p.account_id = b.account_id and p.token = b.token and p.rail = b.rail
      where coalesce(b.available + b.locked, 0) <> coalesce(p.total, 0)
      limit 100`,
  },
  {
    name: 'lockedEqualsLiveLocks',
    query: sql`
      select b.account_id, b.token, b.rail, b.locked::text as locked, coalesce(l.total, 0)::text as live_locks
      from balances b
      left join (select account_id, token, rail, sum(amount) as total from locks where released_at is null group by account_id, token, rail) l
        on l.account_id = b.account_id and l.token = b.token and l.rail = b.rail
      where b.locked <> coalesce(l.total, 0)
      limit 100`,
  },
  {
    name: 'liveLockHasLiveOwner',
    query: sql`
      select l.lock_id, l.owner_kind, l.owner_id, r.status as rfq_status, w.status as withdrawal_status
      from locks l
      left join rfqs r on l.owner_kind = 'rfq' and r.id = l.owner_id
      left join withdrawals w on l.owner_kind = 'withdrawal' and w.id = l.owner_id
      left join quotes q on l.owner_kind = 'sweep_leg' and q.id = l.owner_id
      where l.released_at is null
        and not (l.owner_kind = 'rfq' and r.status in ('PENDING', 'QUOTED'))
        and not (l.owner_kind = 'sweep_leg' and q.status = 'SELECTED')
        and not (l.owner_kind = 'withdrawal' and w.status in ('PENDING', 'APPROVED', 'PROCESSING', 'UNRESOLVED')
                 and w.account_id = l.account_id and w.token = l.token and w.amount = l.amount)
        and l.owner_kind not in ('order', 'v0_withdrawal')
      limit 100`,
  },
  {
    // The converse for withdrawals: a withdrawal that still holds its funds has its lock.
    name: 'liveWithdrawalHasLock',
    query: sql`
      select w.id, w.status
      from withdrawals w
      where w.status in ('PENDING', 'APPROVED', 'PROCESSING', 'UNRESOLVED')
        and not exists (select 1 from locks l where l.owner_kind = 'withdrawal' and l.owner_id = w.id and l.released_at is null)
      limit 100`,
  },
  {
    name: 'oneLiveLockPerOwner',
    query: sql`select owner_kind, owner_id, count(*)::int as live from locks where released_at is null group by owner_kind, owner_id having count(*) > 1 limit 100`,
  },
];

/** Every check's violations, the checks in the order above. */
export async function ledgerInvariantViolations(db: Reader): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const check of checks) {
    const result = await check.query.execute(db);
    for (const row of result.rows) violations.push({ check: check.name, detail: row });
  }
  return violations;
}
