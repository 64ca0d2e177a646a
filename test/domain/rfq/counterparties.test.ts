import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BROADCAST, aliasKey, parseAlias, reaches, rfqAudience } from '../../../src/domain/rfq/index.ts';
import { ServiceError } from '../../../src/domain/errors.ts';

describe('maker aliases', () => {
  it('takes 3-32 letters, digits, dots, underscores and dashes, starting with a letter or digit', () => {
    for (const alias of ['abc', 'Alpha-MM', 'desk_7', 'a.b.c', 'x'.repeat(32), '7seas']) assert.equal(parseAlias(alias), alias);
  });

  it('refuses anything else with INVALID_REQUEST naming the field', () => {
    for (const alias of ['ab', 'x'.repeat(33), '-lead', '.dot', 'with space', 'ünïcode', 'tab\there', '0xabcdef12', '0x1234567890abcdef']) {
      assert.throws(() => parseAlias(alias, 'makers[2]'), (e: unknown) => e instanceof ServiceError && e.code === 'INVALID_REQUEST' && JSON.stringify(e.details).includes('makers[2]'), alias);
    }
  });

  it('compares without regard to case', () => {
    assert.equal(aliasKey('Alpha-MM'), aliasKey('alpha-mm'));
  });
});

describe('an RFQ audience', () => {
  const ids = fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5');
  const lists = fc.uniqueArray(ids, { maxLength: 5 });

  it('the default broadcast reaches every maker', () => {
    fc.assert(fc.property(ids, (id) => reaches(BROADCAST, id)));
  });

  it('reaches exactly the named makers that do not deny the taker, or every maker neither excluded nor denying', () => {
    fc.assert(
      fc.property(fc.option(lists, { nil: null }), lists, lists, ids, (named, excluded, deniers, maker) => {
        const audience = rfqAudience({ named, excluded: named === null ? excluded : [], deniers });
        const expected = (named === null ? !excluded.includes(maker) : named.includes(maker)) && !deniers.includes(maker);
        assert.equal(reaches(audience, maker), expected);
      }),
    );
  });
});
