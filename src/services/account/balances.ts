/** The caller's balances (one entry per token and rail) and the `balanceSnapshot` frame. */
import { formatAmount } from '../../domain/money/index.ts';
import type { Reader } from '../../store/transaction.ts';
import { readBalanceRows, type BalanceRow, type Rail } from '../../store/ledger.ts';
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
  return balanceViews(deps, await readBalanceRows(db, accountId));
}

/** The views of balance rows already read (in token, rail order). */
export async function balanceViews(deps: ServiceDeps, rows: ReadonlyArray<{ token: string; rail: string; available: bigint; locked: bigint }>): Promise<BalanceView[]> {
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

/**
 * The `balanceSnapshot` frame of one account's rows (in token, rail order). A pushed frame's rows
 * are read as its transaction writes its frames (src/services/frames.ts `pushBalances`); a
 * subscription's baseline reads them with its `seq` (src/ws/baselines.ts).
 */
export async function balanceSnapshotFrame(deps: ServiceDeps, rows: readonly BalanceRow[]): Promise<Record<string, unknown>> {
  return { kind: 'balanceSnapshot', balances: await balanceViews(deps, rows) };
}
