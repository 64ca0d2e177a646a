/**
 * "May this maker quote this RFQ now?", decided in one place. A maker may quote when it is active,
 * not suspended, approved for the instrument's pair, and offers a settlement mode that settles the
 * quote: `perp` for a perp; for spot, `xchange` when the quote carries a bundle, else an inventory
 * mode (permit2 when offered, else promised). The quote-write SQL function
 * (src/store/sql/rfq_write_quotes.sql) re-checks the same standing on the live row, inside the
 * write, since a suspension must bite at once; a refusal there is explained by this rule on a
 * fresh read (src/services/rfq/submit-quote.ts).
 */
import { ServiceError } from '../errors.ts';
import type { Instrument } from './types.ts';

/** What the rule reads of a maker. */
export interface MakerStanding {
  active: boolean;
  /** Unix ms; the maker may quote again from this instant. */
  suspendedUntil: number | null;
  pairs: readonly string[];
  settlementModes: readonly string[];
}

export type QuoteKind = 'inventory' | 'xchange' | 'perp';
export type QuoteSettlementMode = 'permit2' | 'promised' | 'xchange' | 'perp';

/** The modes that settle a spot quote; `perp` settles perp instruments only. */
const SPOT_MODES = ['permit2', 'promised', 'xchange'];

export function pairOf(instrument: Pick<Instrument, 'base' | 'quote'>): string {
  return `${instrument.base}-${instrument.quote}`;
}

/**
 * Why a maker may not act now (quote, be selected, use maker routes), or null when it may: not a
 * maker or inactive, else suspended until after `now`. The database checks the same rule as
 * `rfq_maker_standing` (src/store/sql/rfq_maker_standing.sql); test/store/sql-checks.test.ts
 * holds the two to the same verdicts.
 */
export function makerStandingRefusal(maker: Pick<MakerStanding, 'active' | 'suspendedUntil'> | null, now: number): 'inactive' | 'suspended' | null {
  if (!maker || !maker.active) return 'inactive';
  if (maker.suspendedUntil !== null && maker.suspendedUntil > now) return 'suspended';
  return null;
}

/** @throws ServiceError MAKER_NOT_APPROVED (with `suspendedUntil` when suspended). */
export function assertMakerActive<M extends MakerStanding>(maker: M | null, now: number): asserts maker is M {
  const refusal = makerStandingRefusal(maker, now);
  if (refusal === 'inactive') throw new ServiceError('MAKER_NOT_APPROVED', 'this account is not an active maker');
  if (refusal === 'suspended') {
    throw new ServiceError('MAKER_NOT_APPROVED', 'this maker is suspended after failed settlements', { suspendedUntil: maker!.suspendedUntil });
  }
}

/** @throws ServiceError MAKER_NOT_APPROVED when the maker is not approved for the instrument's pair. */
export function assertApprovedFor(maker: Pick<MakerStanding, 'pairs'>, instrument: Pick<Instrument, 'base' | 'quote'>): void {
  if (!maker.pairs.includes(pairOf(instrument))) {
    throw new ServiceError('MAKER_NOT_APPROVED', `maker is not approved for ${pairOf(instrument)}`);
  }
}

/**
 * True when one of the maker's settlement modes can settle this instrument (the "operated
 * settlement adapter" openRfqs eligibility asks for): `perp` for a perp, a spot mode for a spot.
 * Pairs are shared (`ETH-USDC` names both ETH-USDC-SPOT and ETH-USDC-PERP), so the mode decides.
 */
export function makerServes(maker: Pick<MakerStanding, 'settlementModes'>, instrument: Pick<Instrument, 'type'>): boolean {
  if (instrument.type === 'PERP') return maker.settlementModes.includes('perp');
  return maker.settlementModes.some((mode) => SPOT_MODES.includes(mode));
}

/** The ids of the enabled instruments whose RFQs reach this maker: its pairs, a mode that settles them. */
export function servedInstrumentIds(maker: Pick<MakerStanding, 'pairs' | 'settlementModes'>, instruments: Iterable<Instrument & { instrumentId: string; enabled: boolean }>): string[] {
  return [...instruments].filter((i) => i.enabled && maker.pairs.includes(pairOf(i)) && makerServes(maker, i)).map((i) => i.instrumentId);
}

/** The mode a quote without an xchange bundle settles in: permit2 when offered, else promised. */
export function inventoryMode(maker: Pick<MakerStanding, 'settlementModes'>): 'permit2' | 'promised' {
  if (maker.settlementModes.includes('permit2')) return 'permit2';
  if (maker.settlementModes.includes('promised')) return 'promised';
  throw new ServiceError('MAKER_NOT_APPROVED', 'maker has no inventory settlement mode (permit2 or promised)');
}

/**
 * The settlement mode this maker's quote of `kind` on `instrument` would settle in, or the refusal.
 * @throws ServiceError MAKER_NOT_APPROVED, the first rule the maker fails, in the order above.
 */
export function admitQuote(maker: MakerStanding | null, instrument: Instrument, kind: QuoteKind, now: number): QuoteSettlementMode {
  assertMakerActive(maker, now);
  assertApprovedFor(maker, instrument);
  if (kind === 'inventory') return inventoryMode(maker);
  if (!maker.settlementModes.includes(kind)) throw new ServiceError('MAKER_NOT_APPROVED', `maker is not approved for ${kind} settlement`);
  return kind;
}
