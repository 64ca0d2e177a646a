/**
 * The store's audience condition (src/store/rfq-audience.ts) gives the domain's verdict
 * (`reaches`, src/domain/rfq/counterparties.ts) on generated audiences, on each backend.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { backends, useMigratedStore } from '../helpers/backends.ts';
import { notDeniedBy, reachesMaker } from '../../src/store/rfq-audience.ts';
import { reaches, rfqAudience } from '../../src/domain/rfq/index.ts';

const IDS = ['4f7c1a52-0000-4000-8000-000000000001', '4f7c1a52-0000-4000-8000-000000000002', '4f7c1a52-0000-4000-8000-000000000003', '4f7c1a52-0000-4000-8000-000000000004'];

for (const backend of backends()) {
  describe(`the RFQ audience in SQL [${backend}]`, () => {
    const db = useMigratedStore(backend);

    it('reachesMaker agrees with the domain on generated audiences', async () => {
      const id = fc.constantFrom(...IDS);
      const list = fc.uniqueArray(id, { maxLength: 4 });
      await fc.assert(
        fc.asyncProperty(fc.option(list, { nil: null }), list, list, id, async (named, excluded, deniers, maker) => {
          const audience = rfqAudience({ named, excluded, deniers });
          const only = audience.only === null ? null : [...audience.only];
          const row = await db.store.db
            .selectFrom(sql<{ audience_only: string[] | null; audience_except: string[] }>`(select ${only}::text[] as audience_only, ${[...audience.except]}::text[] as audience_except)`.as('rfqs'))
            .select(sql<boolean>`${reachesMaker(maker)}`.as('reaches'))
            .executeTakeFirstOrThrow();
          assert.equal(row.reaches, reaches(audience, maker), JSON.stringify({ audience, maker }));
        }),
        { numRuns: 150 },
      );
    });

    it('notDeniedBy keeps exactly the RFQs of takers not on the list', async () => {
      const id = fc.constantFrom(...IDS);
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(id, { maxLength: 4 }), id, async (denied, taker) => {
          const row = await db.store.db
            .selectFrom(sql<{ account_id: string }>`(select ${taker}::uuid as account_id)`.as('rfqs'))
            .select(sql<boolean>`${notDeniedBy(denied)}`.as('kept'))
            .executeTakeFirstOrThrow();
          assert.equal(row.kept, !denied.includes(taker));
        }),
        { numRuns: 60 },
      );
    });
  });
}
