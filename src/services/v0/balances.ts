/** `getBalances` and `getFees` for the authenticated identity (the `VENUE` rail). */
import { formatAmount } from '../../domain/money/index.ts';
import { ppmToFraction } from '../../domain/v0/order-money.ts';
import { balancesOnRail } from '../../store/rail-balances.ts';
import { feeRatesOf, requireAccount } from './accounts.ts';
import type { V0Deps } from './v0-deps.ts';

export interface V0BalanceEntry {
  token: string;
  available: string;
  availableFloat: string;
  locked: string;
  lockedFloat: string;
  total: string;
  totalFloat: string;
}

export async function getBalances(deps: V0Deps, identity: string): Promise<{ balances: V0BalanceEntry[] }> {
  const db = deps.service.db;
  const accountId = await requireAccount(db, identity);
  const rows = await balancesOnRail(db, accountId, 'VENUE');
  return {
    balances: rows
      .filter((r) => r.available + r.locked > 0n)
      .map((r) => ({
        token: r.token,
        available: r.available.toString(),
        availableFloat: formatAmount(r.available, r.decimals),
        locked: r.locked.toString(),
        lockedFloat: formatAmount(r.locked, r.decimals),
        total: (r.available + r.locked).toString(),
        totalFloat: formatAmount(r.available + r.locked, r.decimals),
      })),
  };
}

export async function getFees(deps: V0Deps, identity: string) {
  const accountId = await requireAccount(deps.service.db, identity);
  const rates = await feeRatesOf(deps.service.db, accountId, deps.settings);
  return {
    fees: {
      spot: {
        takerRate: ppmToFraction(rates.takerPpm),
        makerRate: ppmToFraction(rates.makerPpm),
        takerRatePpm: String(rates.takerPpm),
        makerRatePpm: String(rates.makerPpm),
      },
    },
  };
}
