/**
 * Several makers fill one RFQ (`fill: "SWEEP"`, src/domain/rfq/sweep-selection.ts). An RFQ keeps
 * its fill and the least it must fill (`min_fill_qty`, null on an `ALL` RFQ). A quote may be cut
 * only at the version its maker said so (`divisible_version`): a re-quote advances the version,
 * so until the maker says so again the quote is all-or-none. A selected quote that was cut keeps
 * its selected base in `selected_qty`; its legs are written as cut. The RFQ keeps its legs in
 * `sweep_fills`, in rank order, with what each moves and how it ended (null until selected).
 * Written with the schema builder alone: a migration is history and imports nothing that may change.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('rfqs').addColumn('fill', 'text', (c) => c.notNull().defaultTo('ALL')).execute();
  await db.schema.alterTable('rfqs').addColumn('min_fill_qty', 'numeric(78, 0)').execute();
  await db.schema.alterTable('quotes').addColumn('divisible_version', 'integer').execute();
  await db.schema.alterTable('quotes').addColumn('selected_qty', 'numeric(78, 0)').execute();
  await db.schema.alterTable('rfqs').addColumn('sweep_fills', 'jsonb').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('rfqs').dropColumn('sweep_fills').execute();
  await db.schema.alterTable('quotes').dropColumn('selected_qty').execute();
  await db.schema.alterTable('quotes').dropColumn('divisible_version').execute();
  await db.schema.alterTable('rfqs').dropColumn('min_fill_qty').execute();
  await db.schema.alterTable('rfqs').dropColumn('fill').execute();
}
