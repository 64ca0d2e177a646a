/** The caller's balances (one entry per token and rail) and the `balanceSnapshot` frame. */
import { formatAmount } from '../../domain/money/index.ts';
import type { Reader } from '../../store/transaction.ts';
import type { Rail } from '../../store/ledger.ts';
import type { ServiceDeps } from '../deps.ts';

export interface BalanceView { token: string; rail: Rail; available: string; locked: string; total: string }

export async function readBalances(db: Reader, deps: ServiceDeps, accountId: string): Promise<BalanceView[]> {
  const [rows, reference] = await Promise.all([
    db.selectFrom('balances').selectAll().where('account_id', '=', accountId).orderBy('token').orderBy('rail').execute(),
    deps.refdata.current(),
  ]);
  return rows.map((row) => {
    const decimals = reference.tokens.get(row.token)?.decimals ?? 0;
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

/** `balanceSnapshot` frames for several accounts from one read (batched use cases). */
export async function balanceSnapshotFrames(db: Reader, deps: ServiceDeps, accountIds: string[]): Promise<Map<string, Record<string, unknown>>> {
  const frames = new Map<string, Record<string, unknown>>();
  if (accountIds.length === 0) return frames;
  const [rows, reference] = await Promise.all([
    db.selectFrom('balances').selectAll().where('account_id', 'in', accountIds).orderBy('account_id').orderBy('token').orderBy('rail').execute(),
    deps.refdata.current(),
  ]);
  const byAccount = new Map<string, BalanceView[]>(accountIds.map((id) => [id, []]));
  for (const row of rows) {
    const decimals = reference.tokens.get(row.token)?.decimals ?? 0;
    byAccount.get(row.account_id)?.push({
      token: row.token,
      rail: row.rail as Rail,
      available: formatAmount(row.available, decimals),
      locked: formatAmount(row.locked, decimals),
      total: formatAmount(row.available + row.locked, decimals),
    });
  }
  for (const [accountId, balances] of byAccount) frames.set(accountId, { kind: 'balanceSnapshot', balances });
  return frames;
}
