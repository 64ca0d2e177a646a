/**
 * One writer per status: the status of an RFQ, a quote, a custody transfer, a venue action, a
 * `/v0` withdrawal and a `/v0` order is written only by its writer in src/store (through the compare-and-set in
 * src/store/status-change.ts), so every change goes through its state machine. The source is read
 * as text (TypeScript and SQL, migrations included): a Kysely `updateTable(...).set({ status })`,
 * an SQL `update ... set status =` or a compare-and-set naming the table anywhere else fails.
 * Inserting a row in its first status is not a transition and is not looked at.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

interface Entity { table: string; column: string; writer: string | string[] }

const ENTITIES: Entity[] = [
  { table: 'custody_transfers', column: 'status', writer: 'src/store/custody-transfer-status.ts' },
  { table: 'venue_actions', column: 'status', writer: 'src/store/venue-action-status.ts' },
  { table: 'v0_withdrawals', column: 'state', writer: 'src/store/v0-withdrawal-status.ts' },
  { table: 'v0_orders', column: 'status', writer: 'src/store/v0-order-status.ts' },
  // The RFQ's and the quote's writers: the compare-and-set in TypeScript and its batch form in SQL,
  // which every write inside the database (accept, auction close, perp execution) calls.
  { table: 'rfqs', column: 'status', writer: ['src/store/rfq-status.ts', 'src/store/sql/rfq_write_rfq_statuses.sql'] },
  { table: 'quotes', column: 'status', writer: ['src/store/quote-status.ts', 'src/store/sql/rfq_write_quote_statuses.sql'] },
];

/** The compare-and-set every writer calls: it names no table of its own. */
const SHARED_WRITE = 'src/store/status-change.ts';

/** Each place in `source` that writes `entity`'s status column, as the text that does it. */
function statusWrites(source: string, { table, column }: Entity): string[] {
  const found: string[] = [];
  const col = new RegExp(`[{,]\\s*${column}\\s*[:,}]`);
  // Kysely: updateTable('t' [as x]) ... .set({ ..., status: ... }) before the statement runs.
  for (const m of source.matchAll(new RegExp(`updateTable\\(\\s*'${table}(?:\\s+as\\s+\\w+)?'\\s*\\)([\\s\\S]*?)\\.execute`, 'g'))) {
    for (const set of m[1]!.matchAll(/\.set\(([\s\S]*?)\)\s*(?:\.where|\.returning|$)/g)) if (col.test(set[1]!)) found.push(m[0]);
  }
  // SQL (templates, PL/pgSQL bodies, .sql files): update t [[as] x] set ... status = ...
  for (const m of source.matchAll(new RegExp(`\\bupdate\\s+"?${table}"?(?:\\s+(?:as\\s+)?\\w+)?\\s+set\\b([\\s\\S]*?)(?:\\bwhere\\b|\\breturning\\b|\\bfrom\\b|\`|;)`, 'gi'))) {
    if (new RegExp(`(?:^|[\\s,.])${column}\\s*=`, 'i').test(m[1]!)) found.push(m[0]);
  }
  // The shared compare-and-set, aimed at the table from outside its writer.
  for (const m of source.matchAll(new RegExp(`compareAndSetStatus(?:IfStill)?\\([^;]*?'${table}'`, 'g'))) found.push(m[0]);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.(ts|js|sql)$/.test(entry.name) ? [relative] : [];
  });
}

describe('one writer per status', () => {
  const files = sourceFiles('src').map((file) => ({ file, source: readFileSync(path.join(root, file), 'utf8') }));

  for (const entity of ENTITIES) {
    const writers = [entity.writer].flat();
    it(`${entity.table}.${entity.column} is written only by ${writers.join(' and ')}`, () => {
      const elsewhere = files.filter(({ file }) => !writers.includes(file) && file !== SHARED_WRITE).flatMap(({ file, source }) => statusWrites(source, entity).map((text) => `${file}: ${text.slice(0, 120)}`));
      assert.deepEqual(elsewhere, []);
      for (const writer of writers) assert.ok(statusWrites(readFileSync(path.join(root, writer), 'utf8'), entity).length > 0, `${writer} aims the compare-and-set at its table`);
    });
  }

  it('finds each way of writing a status, and nothing that only reads or inserts one', () => {
    const transfers = ENTITIES[0]!;
    const writes = [
      "await tx.updateTable('custody_transfers').set({ status: 'SENT', updated_at: now }).where('id', '=', id).execute();",
      "await db.updateTable('custody_transfers as t')\n  .set({ last_error: null, status })\n  .where('t.id', '=', id)\n  .executeTakeFirst();",
      'sql`update custody_transfers set last_error = null, status = ${to} where id = ${id}`',
      'update "custody_transfers" t set\n  status = d.status\nfrom unnest($1) as d(id, status);',
      "await compareAndSetStatusIfStill(db, 'custody_transfers', change, now);",
    ];
    for (const text of writes) assert.equal(statusWrites(text, transfers).length, 1, text);
    const harmless = [
      "await db.updateTable('custody_transfers').set({ last_error: reason, updated_at: now }).where('status', '=', 'SENT').execute();",
      "await db.selectFrom('custody_transfers').select('status').where('status', 'in', ['SIGNED', 'SENT']).execute();",
      "await db.insertInto('custody_transfers').values({ id, status: 'QUEUED' }).execute();",
      'sql`update custody_transfers set escalated_at = ${now} where status = ${"SENT"}`',
      "await db.updateTable('v0_orders').set({ status: 'open' }).where('id', '=', id).execute();",
    ];
    for (const text of harmless) assert.deepEqual(statusWrites(text, transfers), [], text);
  });
});
