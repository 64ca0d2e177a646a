/**
 * The maker record, read per request (makers change rarely but suspensions must bite at once).
 * Who may quote is the domain's rule (src/domain/rfq/quote-admission.ts), re-exported here for
 * the readers of maker records.
 */
import { assertMakerActive, type MakerStanding } from '../../domain/rfq/index.ts';
import type { Selectable } from 'kysely';
import type { Reader } from '../../store/transaction.ts';
import type { MakersTable } from '../../store/schema.ts';
import { makerOfAccount } from '../../store/maker-registry.ts';

export interface MakerRecord extends MakerStanding {
  makerId: string;
  accountId: string;
  spender: string | null;
  adapterSigner: string | null;
  /** Account ids of the takers this maker denies (counterparty choice). */
  deniedTakers: readonly string[];
}

export type MakerRow = Pick<Selectable<MakersTable>, 'maker_id' | 'account_id' | 'active' | 'pairs' | 'settlement_modes' | 'spender' | 'adapter_signer' | 'suspended_until' | 'denied_takers'>;

export async function activeMaker(db: Reader, accountId: string, now: number): Promise<MakerRecord> {
  const row = await makerOfAccount(db, accountId);
  return activeMakerFrom(row ?? null, now);
}

/** The maker record from its row, or MAKER_NOT_APPROVED when it may not quote now. */
export function activeMakerFrom(row: MakerRow | null, now: number): MakerRecord {
  const maker = row === null ? null : makerRecord(row);
  assertMakerActive(maker, now);
  return maker;
}

function makerRecord(row: MakerRow): MakerRecord {
  return {
    active: row.active,
    suspendedUntil: row.suspended_until,
    makerId: row.maker_id,
    accountId: row.account_id,
    pairs: row.pairs,
    settlementModes: row.settlement_modes,
    spender: row.spender,
    adapterSigner: row.adapter_signer,
    deniedTakers: row.denied_takers,
  };
}

export { assertApprovedFor, inventoryMode, makerServes, pairOf } from '../../domain/rfq/index.ts';
