/**
 * Maker registration (PUT /admin/v1/makers/{address}): creates the account when new, records the
 * approved pairs and settlement modes. A suspension after repeated settlement failures shows here
 * and can be lifted by the operator.
 */
import { getAddress, isAddress } from 'viem';
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { liftSuspension } from '../settlement/maker-failures.ts';
import { ensureAccount } from '../../store/accounts.ts';
import { makerById, makerIdByAddress, makersWithAddress, upsertMaker } from '../../store/maker-registry.ts';
import type { ServiceDeps } from '../deps.ts';

/** `perp`: the maker quotes perp instruments, settled by matched execution at the venue (DESIGN.md 9.1). */
export type SettlementMode = 'permit2' | 'promised' | 'xchange' | 'perp';

export interface MakerInput {
  active: boolean;
  pairs: string[];
  settlementModes: SettlementMode[];
  spender?: string | null;
  adapterSigner?: string | null;
  /** Set false to lift a suspension. */
  suspended?: boolean;
}

/**
 * The wrapper the project's factory deployed for this maker (null: none yet) and the factory's
 * address (chain adapter). A permit2 maker's spender must be that wrapper.
 */
export type SpenderCheck = (maker: string) => Promise<{ wrapper: string | null; factory: string }>;

export interface MakerView {
  makerId: string;
  address: string;
  active: boolean;
  pairs: string[];
  settlementModes: string[];
  spender: string | null;
  adapterSigner: string | null;
  suspendedUntil: number | null;
  /** How often the maker was suspended for failed settlements; the next cooldown is base * 2^this. */
  suspensionCount: number;
  createdAt: number;
  updatedAt: number;
}

/** Refuses a spender other than wrapperOf(maker), naming the expected one or how to deploy it. */
async function assertFactoryWrapper(address: string, spender: string, spenderCheck: SpenderCheck): Promise<void> {
  const { wrapper, factory } = await spenderCheck(address);
  if (wrapper === spender) return;
  const message = wrapper === null
    ? `spender must be wrapperOf(${address}) on the RfqMakerWrapperFactory ${factory}, and none is deployed: call deploy(${address}) on the factory, then register with that wrapper`
    : `spender must be wrapperOf(${address}) on the RfqMakerWrapperFactory ${factory}: ${wrapper}`;
  throw new ServiceError('INVALID_REQUEST', message, {
    errors: [{ field: 'spender', reason: 'notFactoryWrapper', message }],
    expected: wrapper,
    deployed: wrapper !== null,
    factory,
  });
}

export async function putMaker(deps: ServiceDeps, rawAddress: string, input: MakerInput, spenderCheck?: SpenderCheck): Promise<MakerView> {
  const address = normaliseAddress(rawAddress, 'address');
  const pairs = [...new Set(input.pairs)];
  for (const [i, pair] of pairs.entries()) {
    if (!/^[A-Z0-9]{1,16}-[A-Z0-9]{1,16}$/.test(pair)) throw invalidField(`pairs[${i}]`, 'pattern', 'pair must be BASE-QUOTE');
  }
  const spender = input.spender ? normaliseAddress(input.spender, 'spender') : null;
  const adapterSigner = input.adapterSigner ? normaliseAddress(input.adapterSigner, 'adapterSigner') : null;
  if (input.settlementModes.includes('xchange') && !adapterSigner) {
    throw invalidField('adapterSigner', 'required', 'adapterSigner is required for xchange mode');
  }
  // With a chain (the check exists only then), a permit2 maker without its wrapper could win and never settle.
  if (spenderCheck && input.settlementModes.includes('permit2') && !spender) {
    throw invalidField('spender', 'required', 'spender (the maker\'s RfqMakerWrapperFactory wrapper) is required for permit2 mode');
  }
  if (spender && spenderCheck) await assertFactoryWrapper(address, spender, spenderCheck);
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const accountId = await ensureAccount(tx, address, deps.ids.uuid(), now);
    const row = await upsertMaker(tx, {
      newMakerId: deps.ids.uuid(),
      accountId,
      active: input.active,
      pairs,
      settlementModes: [...new Set(input.settlementModes)],
      spender,
      adapterSigner,
      liftSuspension: input.suspended === false,
      now,
    });
    return toMakerView(row, address);
  });
}

/** EIP-55 checksummed form; a mixed-case address with a wrong checksum is refused, not corrected. */
export function normaliseAddress(value: string, field: string): string {
  if (!isAddress(value, { strict: true })) throw invalidField(field, 'address', `${field} is not a valid EVM address (or its EIP-55 checksum is wrong)`);
  return getAddress(value);
}

export function toMakerView(
  row: {
    maker_id: string; active: boolean; pairs: string[]; settlement_modes: string[]; spender: string | null; adapter_signer: string | null;
    suspended_until: number | null; suspension_count: number; created_at: number; updated_at: number;
  },
  address: string,
): MakerView {
  return {
    makerId: row.maker_id,
    address,
    active: row.active,
    pairs: row.pairs,
    settlementModes: row.settlement_modes,
    spender: row.spender,
    adapterSigner: row.adapter_signer,
    suspendedUntil: row.suspended_until,
    suspensionCount: row.suspension_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** POST /admin/v1/makers/{address}/unsuspend: the maker may quote again at once. */
export async function unsuspendMaker(deps: ServiceDeps, rawAddress: string): Promise<MakerView> {
  const address = normaliseAddress(rawAddress, 'address');
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const makerId = await makerIdByAddress(tx, address);
    if (makerId === undefined) throw new ServiceError('NOT_FOUND', 'no maker with this address');
    await liftSuspension(tx, makerId, now);
    const row = await makerById(tx, makerId);
    return toMakerView(row, address);
  });
}

export async function listMakers(deps: ServiceDeps): Promise<MakerView[]> {
  const rows = await makersWithAddress(deps.db);
  return rows.map((row) => toMakerView(row, row.address));
}
