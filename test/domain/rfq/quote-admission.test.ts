import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../../src/domain/errors.ts';
import { admitQuote, makerServes, type Instrument, type MakerStanding, type QuoteKind, type QuoteSettlementMode } from '../../../src/domain/rfq/index.ts';

const NOW = 1_700_000_000_000;
const instrument = (type: 'SPOT' | 'PERP', base = 'ETH'): Instrument => ({
  instrumentId: `${base}-USDC-${type}`,
  base,
  quote: 'USDC',
  baseDecimals: 18,
  quoteDecimals: 6,
  type,
  takerFeeTenthBp: 25,
  minQuoteNotional: null,
  enabled: true,
});
const maker = (overrides: Partial<MakerStanding> = {}): MakerStanding => ({
  active: true,
  suspendedUntil: null,
  pairs: ['ETH-USDC'],
  settlementModes: ['permit2', 'promised', 'xchange', 'perp'],
  ...overrides,
});

/** Every way a maker may quote, and the mode its quote settles in. */
const ADMITTED: [string, MakerStanding, Instrument, QuoteKind, QuoteSettlementMode][] = [
  ['inventory prefers permit2', maker(), instrument('SPOT'), 'inventory', 'permit2'],
  ['inventory without permit2 is promised', maker({ settlementModes: ['promised'] }), instrument('SPOT'), 'inventory', 'promised'],
  ['a bundle settles by xchange', maker(), instrument('SPOT'), 'xchange', 'xchange'],
  ['a perp quote settles at the venue', maker(), instrument('PERP'), 'perp', 'perp'],
  ['a suspension that has ended no longer bites', maker({ suspendedUntil: NOW }), instrument('SPOT'), 'inventory', 'permit2'],
];

/** Every refusal, with what it says (MAKER_NOT_APPROVED in each case). */
const REFUSED: [string, MakerStanding | null, Instrument, QuoteKind, RegExp][] = [
  ['no maker record', null, instrument('SPOT'), 'inventory', /not an active maker/],
  ['an inactive maker', maker({ active: false }), instrument('SPOT'), 'inventory', /not an active maker/],
  ['a suspended maker', maker({ suspendedUntil: NOW + 1 }), instrument('SPOT'), 'inventory', /suspended/],
  ['a pair it is not approved for', maker(), instrument('SPOT', 'BTC'), 'inventory', /not approved for BTC-USDC/],
  ['inventory with neither permit2 nor promised', maker({ settlementModes: ['xchange'] }), instrument('SPOT'), 'inventory', /no inventory settlement mode/],
  ['a bundle without xchange', maker({ settlementModes: ['permit2'] }), instrument('SPOT'), 'xchange', /xchange settlement/],
  ['a perp quote without perp', maker({ settlementModes: ['permit2'] }), instrument('PERP'), 'perp', /perp settlement/],
];

describe('quote admission: may this maker quote now', () => {
  for (const [name, standing, market, kind, mode] of ADMITTED) {
    it(`admits ${name} (${mode})`, () => assert.equal(admitQuote(standing, market, kind, NOW), mode));
  }
  for (const [name, standing, market, kind, message] of REFUSED) {
    it(`refuses ${name}`, () => {
      assert.throws(() => admitQuote(standing, market, kind, NOW), (error: unknown) => error instanceof ServiceError && error.code === 'MAKER_NOT_APPROVED' && message.test(error.message));
    });
  }

  it('a suspended maker learns until when', () => {
    assert.throws(() => admitQuote(maker({ suspendedUntil: NOW + 5 }), instrument('SPOT'), 'inventory', NOW), (error: unknown) => error instanceof ServiceError && error.details?.['suspendedUntil'] === NOW + 5);
  });

  it('openRfqs eligibility: the mode decides between a spot and a perp of the same pair', () => {
    assert.equal(makerServes(maker({ settlementModes: ['perp'] }), instrument('SPOT')), false);
    assert.equal(makerServes(maker({ settlementModes: ['perp'] }), instrument('PERP')), true);
    assert.equal(makerServes(maker({ settlementModes: ['promised'] }), instrument('SPOT')), true);
  });
});
