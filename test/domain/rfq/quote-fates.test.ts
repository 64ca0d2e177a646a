/**
 * The quotes' fates when an auction ends (quoteFates): generated sets of quotes in every status,
 * winners drawn from the open ones, and a perp selection's backups kept.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../../src/domain/errors.ts';
import { QUOTE_STATUSES, decideQuote, quoteFates, type QuoteStatus } from '../../../src/domain/rfq/index.ts';

const quotesArb = fc.uniqueArray(fc.record({ id: fc.stringMatching(/^q[0-9a-f]{4}$/), status: fc.constantFrom(...QUOTE_STATUSES) }), { selector: (q) => q.id, maxLength: 12 });

/** A set of quotes, some of its open ones chosen as winners and some others kept (a perp cascade). */
const caseArb = quotesArb.chain((quotes) => {
  const open = quotes.filter((q) => q.status === 'SUBMITTED').map((q) => q.id);
  return fc.tuple(fc.constant(quotes), fc.subarray(open)).chain(([qs, winners]) =>
    fc.tuple(fc.constant(qs), fc.constant(winners), fc.subarray(open.filter((id) => !winners.includes(id)))),
  );
});

describe('quoteFates', () => {
  it('each winner selected; every other open quote not selected when something was, expired when nothing was; the rest untouched, in the order given', () => {
    fc.assert(
      fc.property(caseArb, ([quotes, winners, kept]) => {
        const fates = quoteFates(quotes, winners, { kept });
        const expected = quotes.flatMap((q) => {
          if (winners.includes(q.id)) return [{ id: q.id, event: 'select' }];
          if (q.status !== 'SUBMITTED' || kept.includes(q.id)) return [];
          return [{ id: q.id, event: winners.length > 0 ? 'notSelect' : 'expire' }];
        });
        assert.deepEqual(fates.map((f) => ({ id: f.quote.id, event: f.event })), expected);
        for (const f of fates) assert.deepEqual(f.decision, decideQuote(f.quote, f.event));
      }),
    );
  });

  it('no winner: every open quote expires (the close without a winner, the taker cancel, a sweep short of minFillQty)', () => {
    const quotes: { id: string; status: QuoteStatus }[] = [{ id: 'a', status: 'SUBMITTED' }, { id: 'b', status: 'CANCELLED' }, { id: 'c', status: 'SUBMITTED' }];
    assert.deepEqual(quoteFates(quotes, []).map((f) => [f.quote.id, f.decision.status]), [['a', 'EXPIRED'], ['c', 'EXPIRED']]);
  });

  it('a winner that is no longer open is refused as the accept refuses it (QUOTE_NOT_ACCEPTABLE), deciding nothing', () => {
    fc.assert(
      fc.property(fc.constantFrom(...QUOTE_STATUSES.filter((s) => s !== 'SUBMITTED')), (status) => {
        assert.throws(() => quoteFates([{ id: 'w', status }, { id: 'o', status: 'SUBMITTED' }], ['w']), (e: unknown) => e instanceof ServiceError && e.code === 'QUOTE_NOT_ACCEPTABLE');
      }),
    );
  });
});
