/**
 * The operator's per-account `/v0` spot fee rates (DESIGN.md section 10): parts per million of the
 * token received, taker and maker, reported to the user by `getFees`. An account without its own
 * rates pays the defaults (V0Settings).
 */
import { getAddress } from 'viem';
import { ServiceError } from '../../domain/errors.ts';
import { deleteV0FeeRates, hasOwnV0FeeRates, writeV0FeeRates } from '../../store/v0-fee-rates.ts';
import { accountIdOf, feeRatesOf } from './accounts.ts';
import type { V0Deps } from './v0-deps.ts';

export interface V0FeeRatesView {
  address: string;
  takerPpm: number;
  makerPpm: number;
  /** `account`: set by the operator for this account; `default`: the service's defaults. */
  source: 'account' | 'default';
}

async function accountOf(deps: V0Deps, address: string): Promise<{ id: string; address: string }> {
  const checksummed = getAddress(address);
  const id = await accountIdOf(deps.service.db, checksummed);
  if (id === null) throw new ServiceError('NOT_FOUND', 'no account with this address');
  return { id, address: checksummed };
}

export async function readV0FeeRates(deps: V0Deps, address: string): Promise<V0FeeRatesView> {
  const account = await accountOf(deps, address);
  const own = await hasOwnV0FeeRates(deps.service.db, account.id);
  const rates = await feeRatesOf(deps.service.db, account.id, deps.settings);
  return { address: account.address, ...rates, source: own ? 'account' : 'default' };
}

/** Sets the account's own rates (replacing any earlier ones); they apply to fills booked from now on. */
export async function setV0FeeRates(deps: V0Deps, address: string, rates: { takerPpm: number; makerPpm: number }): Promise<V0FeeRatesView> {
  const account = await accountOf(deps, address);
  const now = deps.service.clock.now();
  await writeV0FeeRates(deps.service.db, account.id, rates, now);
  return { address: account.address, ...rates, source: 'account' };
}

/** Removes the account's own rates: it pays the defaults again. */
export async function clearV0FeeRates(deps: V0Deps, address: string): Promise<V0FeeRatesView> {
  const account = await accountOf(deps, address);
  await deleteV0FeeRates(deps.service.db, account.id);
  return { address: account.address, takerPpm: deps.settings.defaultTakerPpm, makerPpm: deps.settings.defaultMakerPpm, source: 'default' };
}
