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
