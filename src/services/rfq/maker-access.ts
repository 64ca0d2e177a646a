/**
 * Who may quote: an active, unsuspended maker approved for the instrument's pair with at least
 * one settlement mode. Read per request (makers change rarely but suspensions must bite at once).
 */
import { ServiceError } from '../../domain/errors.ts';
import type { Instrument } from '../../domain/rfq/index.ts';
import type { Selectable } from 'kysely';
import type { Reader } from '../../store/transaction.ts';
import type { MakersTable } from '../../store/schema.ts';

export interface MakerRecord {
  makerId: string;
  accountId: string;
  pairs: string[];
  settlementModes: string[];
  spender: string | null;
  adapterSigner: string | null;
}

export type MakerRow = Pick<Selectable<MakersTable>, 'maker_id' | 'account_id' | 'active' | 'pairs' | 'settlement_modes' | 'spender' | 'adapter_signer' | 'suspended_until'>;

export async function activeMaker(db: Reader, accountId: string, now: number): Promise<MakerRecord> {
  const row = await db.selectFrom('makers').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  return activeMakerFrom(row ?? null, now);
}

/** The maker record from its row, or MAKER_NOT_APPROVED when it may not quote now. */
export function activeMakerFrom(row: MakerRow | null, now: number): MakerRecord {
  if (!row || !row.active) throw new ServiceError('MAKER_NOT_APPROVED', 'this account is not an active maker');
  if (row.suspended_until !== null && row.suspended_until > now) {
    throw new ServiceError('MAKER_NOT_APPROVED', 'this maker is suspended after failed settlements', { suspendedUntil: row.suspended_until });
  }
  return {
    makerId: row.maker_id,
    accountId: row.account_id,
    pairs: row.pairs,
    settlementModes: row.settlement_modes,
    spender: row.spender,
    adapterSigner: row.adapter_signer,
  };
}

export function pairOf(instrument: Pick<Instrument, 'base' | 'quote'>): string {
  return `${instrument.base}-${instrument.quote}`;
}

export function assertApprovedFor(maker: MakerRecord, instrument: Instrument): void {
  if (!maker.pairs.includes(pairOf(instrument))) {
    throw new ServiceError('MAKER_NOT_APPROVED', `maker is not approved for ${pairOf(instrument)}`);
  }
}

/** The modes that settle a spot quote; `perp` settles perp instruments only. */
const SPOT_MODES = ['permit2', 'promised', 'xchange'];

/**
 * True when one of the maker's settlement modes can settle this instrument (the "operated
 * settlement adapter" openRfqs eligibility asks for): `perp` for a perp, a spot mode for a spot.
 * Pairs are shared (`ETH-USDC` names both ETH-USDC-SPOT and ETH-USDC-PERP), so the mode decides.
 */
export function makerServes(maker: Pick<MakerRecord, 'settlementModes'>, instrument: Pick<Instrument, 'type'>): boolean {
  if (instrument.type === 'PERP') return maker.settlementModes.includes('perp');
  return maker.settlementModes.some((mode) => SPOT_MODES.includes(mode));
}

/** The mode a quote without an xchange bundle settles in: permit2 when offered, else promised. */
export function inventoryMode(maker: MakerRecord): 'permit2' | 'promised' {
  if (maker.settlementModes.includes('permit2')) return 'permit2';
  if (maker.settlementModes.includes('promised')) return 'promised';
  throw new ServiceError('MAKER_NOT_APPROVED', 'maker has no inventory settlement mode (permit2 or promised)');
}
