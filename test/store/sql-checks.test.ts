/**
 * One rule, one check: each rule a write checks inside the database is one named SQL function
 * (src/store/sql/manifest.ts `SQL_CHECKS`), and generated cases get the same verdict from it as
 * from the domain's rule, on both stores. The functions that need a rule call its check; no other
 * SQL function spells the rule out again.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { backends } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { openSpotMarket, type SpotMarket } from './spot-market.ts';
import { SQL_CHECKS } from '../../src/store/sql/manifest.ts';
import { makerStandingRefusal } from '../../src/domain/rfq/quote-admission.ts';
import { isOpenForQuotes } from '../../src/domain/rfq/auction.ts';
import { isProtectionTripped } from '../../src/domain/rfq/maker-protection.ts';
import { RFQ_STATUSES } from '../../src/domain/rfq/types.ts';
import { EXECUTION_PHASES, holdsRfqForAccept } from '../../src/domain/perp/execution.ts';

const SQL_DIR = path.join(import.meta.dirname, '../../src/store/sql');

/** Instants around a boundary, so `<` against `<=` differences show. */
const instant = fc.oneof(fc.constantFrom(1_700_000_000_000, 1_700_000_000_001, 1_699_999_999_999), fc.integer({ min: 1_699_999_990_000, max: 1_700_000_010_000 }));
const RUNS = 60;

for (const backend of backends()) {
  describe(`SQL checks and their domain rules [${backend}]`, () => {
    let store: Store;
    let market: SpotMarket;
    let close: () => Promise<void>;
    before(async () => {
      ({ store, market, close } = await openSpotMarket(backend));
    });
    after(() => close());

    const scalar = async <T>(query: ReturnType<typeof sql<{ v: T }>>) => (await query.execute(store.db)).rows[0]!.v;

    it('rfq_maker_standing: the verdict of makerStandingRefusal (no maker, inactive, suspended until before, at and after now)', async () => {
      const maker = fc.option(fc.record({ active: fc.boolean(), suspendedUntil: fc.option(instant, { nil: null }) }), { nil: null });
      await fc.assert(fc.asyncProperty(maker, instant, async (m, now) => {
        const got = await scalar<string | null>(sql<{ v: string | null }>`select rfq_maker_standing(${m?.active ?? null}::boolean, ${m?.suspendedUntil ?? null}::int8, ${now}::int8) as v`);
        assert.equal(got, makerStandingRefusal(m, now));
      }), { numRuns: RUNS });
    });

    it('rfq_open_for_quotes: the verdict of isOpenForQuotes over every RFQ status and the auction deadline', async () => {
      await fc.assert(fc.asyncProperty(fc.constantFrom(...RFQ_STATUSES), instant, instant, async (status, endsAt, now) => {
        const got = await scalar<boolean>(sql<{ v: boolean }>`select rfq_open_for_quotes(${status}::text, ${endsAt}::int8, ${now}::int8) as v`);
        assert.equal(got, isOpenForQuotes(status, endsAt, now));
      }), { numRuns: RUNS });
    });

    it('rfq_protection_tripped: the verdict of isProtectionTripped', async () => {
      await fc.assert(fc.asyncProperty(fc.option(instant, { nil: null }), async (triggeredAt) => {
        const got = await scalar<boolean>(sql<{ v: boolean }>`select rfq_protection_tripped(${triggeredAt}::int8) as v`);
        assert.equal(got, isProtectionTripped({ triggeredAt }));
      }), { numRuns: RUNS });
    });

    it("rfq_accepting_execution: the RFQ's execution in a phase holdsRfqForAccept names, else null", async () => {
      // At most one execution of an RFQ checks at a time (a unique index): the generator keeps to it.
      const phases = fc.array(fc.constantFrom(...EXECUTION_PHASES), { maxLength: 4 }).filter((list) => list.filter((p) => p === 'checking').length <= 1);
      await fc.assert(fc.asyncProperty(phases, async (list) => {
        const { rfqId, executionIds } = await rfqWithExecutions(store, market, list);
        const got = await scalar<string | null>(sql<{ v: string | null }>`select rfq_accepting_execution(${rfqId}::text) as v`);
        const holding = list.findIndex((phase) => holdsRfqForAccept(phase));
        assert.equal(got, holding === -1 ? null : executionIds[holding]);
      }), { numRuns: 25 });
    });
  });
}

describe('SQL checks: one home each', () => {
  it('every check is installed, has its case above, and no other SQL function spells its rule out', () => {
    const files = readdirSync(SQL_DIR).filter((f) => f.endsWith('.sql'));
    const thisTest = readFileSync(import.meta.filename, 'utf8');
    for (const [name, { rule, spelled }] of Object.entries(SQL_CHECKS)) {
      assert.ok(files.includes(`${name}.sql`), `${name}.sql exists`);
      assert.ok(thisTest.includes(`it('${name}:`) || thisTest.includes(`it("${name}:`), `${name} has a parity case`);
      assert.ok(thisTest.includes(rule), `${name}'s case feeds the domain's ${rule}`);
      const copies = files.filter((f) => f !== `${name}.sql` && spelled.test(readFileSync(path.join(SQL_DIR, f), 'utf8').replace(/--.*$/gm, '')));
      assert.deepEqual(copies, [], `${name}'s rule spelled out again (call ${name} instead)`);
    }
  });

  it('the functions that need a rule call its check', () => {
    const calls = (file: string, check: string) => readFileSync(path.join(SQL_DIR, `${file}.sql`), 'utf8').replace(/--.*$/gm, '').includes(`${check}(`);
    for (const [file, checks] of Object.entries({
      rfq_write_quotes: ['rfq_maker_standing', 'rfq_open_for_quotes', 'rfq_protection_tripped'],
      rfq_barred_makers: ['rfq_maker_standing'],
      rfq_locked_protections: ['rfq_protection_tripped'],
      rfq_close_lock: ['rfq_accepting_execution'],
      rfq_perp_record_accept: ['rfq_accepting_execution'],
    })) {
      for (const check of checks) assert.ok(calls(file, check), `${file} calls ${check}`);
    }
  });
});

async function rfqWithExecutions(store: Store, market: SpotMarket, phases: readonly string[]): Promise<{ rfqId: string; executionIds: string[] }> {
  const rfqId = `rfq_${randomUUID()}`;
  const quoteId = `q_${randomUUID()}`;
  const at = 1_700_000_000_000;
  await store.db.insertInto('rfqs').values({
    id: rfqId, account_id: market.taker, instrument_id: 'ETH-USDC-SPOT', side: 'BUY', base_qty: 10n ** 18n, quote_limit: null, taker_fee_tenth_bp: 25, auto_accept: false,
    status: 'PENDING', created_at: at, auction_ends_at: at + 60_000, settlement_deadline_secs: 1_700_003_600, quoted_at: null, settled_at: null,
    executed_pay_amount: null, executed_recv_amount: null, taker_fee: null, tx_hash: null, failure_code: null, failure_reason: null, selected_quote_id: null,
    idempotency_key: null, request_fingerprint: 'f', updated_at: at,
  }).execute();
  await store.db.insertInto('quotes').values({
    id: quoteId, rfq_id: rfqId, maker_id: market.makerId, maker_account_id: market.makerAccount, version: 1, status: 'SUBMITTED', maker_pays_token: 'ETH',
    maker_pays_amount: 10n ** 18n, maker_receives_token: 'USDC', maker_receives_amount: 3_000_000_000n, taker_fee: 7_500_000n, taker_total: 3_007_500_000n,
    received_at: at, acceptable_for_ms: null, settlement_mode: 'perp', settlement_deadline_secs: null, permit_signature: null, spender: null,
    delivery_deadline_secs: null, window_starts_at: null, window_ends_at: null, xchange: null, settled_at: null,
    tx_hash: null, created_at: at, updated_at: at, quote_hash: null, position: 1,
  }).execute();
  const executionIds: string[] = [];
  for (const phase of phases) {
    executionIds.push(`px_${randomUUID()}`);
    await store.db.insertInto('perp_executions').values({
      id: executionIds.at(-1)!, rfq_id: rfqId, quote_id: quoteId, account_id: market.taker, quote_version: 1, taker_order: '{}', signer: null, nonce: null, cloid: null,
      phase, state: JSON.stringify({ phase }), taker_sent_at: null, taker_reply_at: null, failure_code: null,
      lease_owner: null, lease_until: 0, next_at: at, created_at: at, updated_at: at,
    }).execute();
  }
  return { rfqId, executionIds };
}
