/** The account behind a `/v0` identity (an EIP-55 address), and its spot fee rates. */
import { ServiceError } from '../../domain/errors.ts';
import { accountIdByAddress } from '../../store/accounts.ts';
import type { Reader } from '../../store/transaction.ts';
import { v0FeeRatesRow } from '../../store/v0-fee-rates.ts';
import type { V0Settings } from './venue-port.ts';

export async function accountIdOf(db: Reader, identity: string): Promise<string | null> {
  return accountIdByAddress(db, identity);
}

export const NO_ACCOUNT = 'no account for this identity; fund it with a spotSend to the omnibus first';

/** @throws ServiceError USER_NOT_FOUND when the identity has no account (DESIGN.md section 10). */
export async function requireAccount(db: Reader, identity: string): Promise<string> {
  const id = await accountIdOf(db, identity);
  if (id === null) throw new ServiceError('USER_NOT_FOUND', NO_ACCOUNT);
  return id;
}

export async function feeRatesOf(db: Reader, accountId: string, settings: V0Settings): Promise<{ takerPpm: number; makerPpm: number }> {
  const row = await v0FeeRatesRow(db, accountId);
  return row ? { takerPpm: row.taker_ppm, makerPpm: row.maker_ppm } : { takerPpm: settings.defaultTakerPpm, makerPpm: settings.defaultMakerPpm };
}
