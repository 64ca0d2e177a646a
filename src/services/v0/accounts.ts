/** The account behind a `/v0` identity (an EIP-55 address), and its spot fee rates. */
import { ServiceError } from '../../domain/errors.ts';
import type { Reader } from '../../store/transaction.ts';
import type { V0Settings } from './venue-port.ts';

export async function accountIdOf(db: Reader, identity: string): Promise<string | null> {
  const row = await db.selectFrom('accounts').select('id').where('address', '=', identity).executeTakeFirst();
  return row?.id ?? null;
}

export const NO_ACCOUNT = 'no account for this identity; fund it with a spotSend to the omnibus first';

/** @throws ServiceError USER_NOT_FOUND when the identity has no account (DESIGN.md section 10). */
export async function requireAccount(db: Reader, identity: string): Promise<string> {
  const id = await accountIdOf(db, identity);
  if (id === null) throw new ServiceError('USER_NOT_FOUND', NO_ACCOUNT);
  return id;
}

export async function feeRatesOf(db: Reader, accountId: string, settings: V0Settings): Promise<{ takerPpm: number; makerPpm: number }> {
  const row = await db.selectFrom('v0_fee_rates').select(['taker_ppm', 'maker_ppm']).where('account_id', '=', accountId).executeTakeFirst();
  return row ? { takerPpm: row.taker_ppm, makerPpm: row.maker_ppm } : { takerPpm: settings.defaultTakerPpm, makerPpm: settings.defaultMakerPpm };
}
