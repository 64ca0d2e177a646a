/** The caller's balances (one entry per token and rail) and the `balanceSnapshot` frame. */
import { formatAmount } from '../../domain/money/index.ts';
import type { Reader } from '../../store/transaction.ts';
import type { Rail } from '../../store/ledger.ts';
import type { ServiceDeps } from '../deps.ts';

export interface BalanceView { token: string; rail: Rail; available: string; locked: string; total: string }

/**
 * Each token's decimals. A node's cached reference data may predate a token listed on another
 * node (within the cache TTL) while a balance in it already exists: reload then, rather than
 * print raw units as if the token had no decimals (found by the simulation, seed 304 on
 * PostgreSQL: a balance of 200000 USDC read as "200000000000").
 */
async function decimalsOf(deps: ServiceDeps, tokens: Iterable<string>): Promise<Map<string, number>> {
  let reference = await deps.refdata.current();
  const wanted = [...new Set(tokens)];
  if (wanted.some((token) => !reference.tokens.has(token))) reference = await deps.refdata.reload();
  const decimals = new Map<string, number>();
  for (const token of wanted) {
    const listed = reference.tokens.get(token);
    if (!listed) throw new Error(`balance in token ${token}, which is not listed`);
    decimals.set(token, listed.decimals);
  }
  return decimals;
}

export async function readBalances(db: Reader, deps: ServiceDeps, accountId: string): Promise<BalanceView[]> {
  const rows = await db.selectFrom('balances').selectAll().where('account_id', '=', accountId).orderBy('token').orderBy('rail').execute();
  return balanceViews(deps, rows);
}

/** The views of balance rows already read (in token, rail order). */
export async function balanceViews(deps: ServiceDeps, rows: Array<{ token: string; rail: string; available: bigint; locked: bigint }>): Promise<BalanceView[]> {
  const decimalsByToken = await decimalsOf(deps, rows.map((row) => row.token));
  return rows.map((row) => {
    const decimals = decimalsByToken.get(row.token)!;
    return {
      token: row.token,
      rail: row.rail as Rail,
      available: formatAmount(row.available, decimals),
      locked: formatAmount(row.locked, decimals),
      total: formatAmount(row.available + row.locked, decimals),
    };
  });
}

/** Read inside the committing transaction so the frame is exactly the committed state. */
export async function balanceSnapshotFrame(db: Reader, deps: ServiceDeps, accountId: string): Promise<Record<string, unknown>> {
  return { kind: 'balanceSnapshot', balances: await readBalances(db, deps, accountId) };
}

/** A balance row as read (the `balances` table), whoever read it. */
export interface BalanceRow { account_id: string; token: string; rail: string; available: bigint; locked: bigint }

/**
 * `balanceSnapshot` frames for several accounts from one read (batched use cases). `read` holds
 * rows a write already answered after its locks (every row of each account in it, in token, rail
 * order): those accounts are not read again; any other account is read here.
 */
export async function balanceSnapshotFrames(db: Reader, deps: ServiceDeps, accountIds: string[], read: readonly BalanceRow[] = []): Promise<Map<string, Record<string, unknown>>> {
  const frames = new Map<string, Record<string, unknown>>();
  if (accountIds.length === 0) return frames;
  const answered = new Set(read.map((row) => row.account_id));
  const unread = accountIds.filter((id) => !answered.has(id));
  const rows: BalanceRow[] = [
    ...read,
    ...(unread.length === 0 ? [] : await db.selectFrom('balances').selectAll().where('account_id', 'in', unread).orderBy('account_id').orderBy('token').orderBy('rail').execute()),
  ];
  const byAccount = new Map<string, BalanceRow[]>(accountIds.map((id) => [id, []]));
  for (const row of rows) byAccount.get(row.account_id)?.push(row);
  for (const [accountId, own] of byAccount) frames.set(accountId, { kind: 'balanceSnapshot', balances: await balanceViews(deps, own) });
  return frames;
}
