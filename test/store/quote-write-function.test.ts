/**
 * `rfq_write_quotes`' replay claims (src/store/sql/rfq_write_quotes.sql), claimed for the whole
 * batch in one call: a pair repeated inside one batch is won by its first item only (the rest are
 * `out_reused` and write nothing), a pair claimed by an earlier batch is reused, a revoked key is
 * refused `keyRevoked`, and an item without a claim is written. Asked (`p_events`), it also
 * returns the id and seq of the outbox rows it wrote, for the writer's node to deliver its frames
 * without reading them back.
 * An item whose maker's protection on its instrument has tripped is refused `protectionTriggered`
 * (its claim made) and writes nothing; other instruments and a reset protection are unaffected.
 * The write and the functions it calls keep their plans (src/store/sql/README.md, "Generic plans").
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { seedSpotMarket } from './spot-market.ts';

for (const backend of backends()) {
  describe(`quote write claims [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    let taker: string;
    let makerAccount: string;
    const [key, revoked] = [`ak_${randomUUID()}`, `ak_${randomUUID()}`];
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
      ({ taker, makerAccount } = await seedSpotMarket(store));
      await store.db.insertInto('api_keys').values([
        { access_key: key, account_id: makerAccount, secret_enc: 'x', maker_scoped: true, created_at: 1, expires_at: 10 ** 15, revoked_at: null },
        { access_key: revoked, account_id: makerAccount, secret_enc: 'x', maker_scoped: true, created_at: 1, expires_at: 10 ** 15, revoked_at: 2 },
      ]).execute();
    });
    after(async () => {
      await close();
    });

    /** `n` orders the RFQ in the write's loop, which runs in (RFQ, maker, arrival) order. */
    async function openRfq(n: number): Promise<string> {
      const id = `rfq_${n}_${randomUUID()}`;
      await store.db.insertInto('rfqs').values({
        id, account_id: taker, instrument_id: 'ETH-USDC-SPOT', side: 'BUY', base_qty: 10n ** 18n, quote_limit: null, taker_fee_tenth_bp: 25, auto_accept: false,
        status: 'PENDING', created_at: 1, auction_ends_at: 10 ** 13, settlement_deadline_secs: 10 ** 10, quoted_at: null, settled_at: null, executed_pay_amount: null,
        executed_recv_amount: null, taker_fee: null, tx_hash: null, failure_code: null, failure_reason: null, selected_quote_id: null, idempotency_key: null,
        request_fingerprint: 'f', updated_at: 1,
      }).execute();
      return id;
    }
    const item = (ord: number, rfqId: string, claim: { accessKey: string; signedAt: number } | null) => ({
      ord, access_key: claim?.accessKey ?? null, signed_at: claim?.signedAt ?? null, quote_id: `q_${randomUUID()}`, rfq_id: rfqId, taker, maker_account: makerAccount,
      instrument: 'ETH-USDC-SPOT', pair: 'ETH-USDC', mode: 'promised', pays_token: 'ETH', pays_amount: '1000000000000000000', recv_token: 'USDC', recv_amount: '3000000000', fee: '0',
      total: '3000000000', acceptable: null, now: 100, taker_frame: { kind: 'quoteUpdate' }, maker_frame: { kind: 'quoteStatus' }, xchange: null, adapter_signer: null,
    });
    const write = async (items: unknown[]) =>
      (await sql<{ out_ord: number; out_reused: boolean; out_quote_id: string | null; out_refusal: string | null }>`
        select out_ord, out_reused, out_quote_id, out_refusal from rfq_write_quotes(${JSON.stringify(items)}::jsonb) order by out_ord`.execute(store.db)).rows;

    it('claims the batch once: a repeated pair is won by its first item, later batches and revoked keys are refused', async () => {
      const [a, b, c, d, e] = (await Promise.all([1, 2, 3, 4, 5].map(openRfq))) as [string, string, string, string, string];
      const rows = await write([
        item(0, a, { accessKey: key, signedAt: 7 }),
        item(1, b, { accessKey: key, signedAt: 7 }),
        item(2, c, { accessKey: key, signedAt: 8 }),
        item(3, d, { accessKey: revoked, signedAt: 7 }),
        item(4, e, null),
      ]);
      assert.deepEqual(rows.map((r) => [r.out_ord, r.out_reused, r.out_quote_id !== null, r.out_refusal]), [
        [0, false, true, null],
        [1, true, false, null],
        [2, false, true, null],
        [3, false, false, 'keyRevoked'],
        [4, false, true, null],
      ]);
      const again = await write([item(0, d, { accessKey: key, signedAt: 8 })]);
      assert.deepEqual(again.map((r) => [r.out_reused, r.out_quote_id]), [[true, null]]);
      const quotes = await store.db.selectFrom('quotes').select('rfq_id').where('rfq_id', 'in', [a, b, c, d, e]).execute();
      assert.deepEqual(quotes.map((q) => q.rfq_id).sort(), [a, c, e].sort());
    });

    it('asked for them, returns the id and seq of each outbox row it wrote, in append order, on one more row', async () => {
      const [a, b] = (await Promise.all([6, 7].map(openRfq))) as [string, string];
      const { rows } = await sql<{ out_ord: number | null; out_quote_id: string | null; out_version: string | null; out_events: Array<[number, number | null]> | null }>`
        select out_ord, out_quote_id, out_version, out_events from rfq_write_quotes(${JSON.stringify([item(0, a, null), item(1, b, { accessKey: key, signedAt: 7 })])}::jsonb, true)`.execute(store.db);
      // Item 1 reuses a claimed pair and writes nothing; item 0 writes one frame for each side.
      assert.deepEqual(rows.map((r) => r.out_ord), [0, 1, null]);
      const appended = rows[2]!.out_events!;
      const stored = await store.db.selectFrom('outbox').select(['id', 'account_id', 'topic', 'seq', 'frame']).where('id', '>=', appended[0]![0]).orderBy('id').execute();
      assert.deepEqual(appended, stored.map((r) => [Number(r.id), Number(r.seq)]));
      // The frames as the writer's node rebuilds them for its dispatcher (write-quote.ts): quoteId and version set.
      const written = { quoteId: rows[0]!.out_quote_id, version: Number(rows[0]!.out_version) };
      assert.deepEqual(stored.map((r) => [r.account_id, r.topic, r.frame]), [
        [taker, 'quotes', { kind: 'quoteUpdate', ...written }],
        [makerAccount, 'quoteStatus', { kind: 'quoteStatus', ...written }],
      ]);
      // Nothing written: no such row.
      const none = await sql<{ out_ord: number | null }>`select out_ord from rfq_write_quotes(${JSON.stringify([item(0, a, { accessKey: key, signedAt: 7 })])}::jsonb, true)`.execute(store.db);
      assert.deepEqual(none.rows.map((r) => r.out_ord), [0]);
    });

    it("refuses an item while the maker's protection on its instrument is tripped, claim made, nothing written", async () => {
      const [a, b] = (await Promise.all([8, 9].map(openRfq))) as [string, string];
      await store.db.insertInto('maker_protections').values({
        maker_account_id: makerAccount, instrument_id: 'ETH-USDC-SPOT', window_ms: 1000, max_selected_quotes: 1, max_selected_notional: null,
        triggered_at: 50, trigger_reason: 'maxSelectedQuotes', updated_at: 50,
      }).execute();
      const rows = await write([item(0, a, { accessKey: key, signedAt: 9 }), { ...item(1, b, null), instrument: 'BTC-USDC-SPOT' }]);
      assert.deepEqual(rows.map((r) => [r.out_ord, r.out_reused, r.out_quote_id !== null, r.out_refusal]), [
        [0, false, false, 'protectionTriggered'],
        [1, false, true, null],
      ]);
      assert.deepEqual(await store.db.selectFrom('quotes').select('rfq_id').where('rfq_id', '=', a).execute(), []);
      // The refused item's claim stands: the same request cannot be replayed to success.
      assert.deepEqual((await write([item(0, a, { accessKey: key, signedAt: 9 })])).map((r) => r.out_reused), [true]);
      await store.db.updateTable('maker_protections').set({ triggered_at: null, trigger_reason: null }).where('maker_account_id', '=', makerAccount).execute();
      assert.deepEqual((await write([item(0, a, { accessKey: key, signedAt: 10 })])).map((r) => [r.out_quote_id !== null, r.out_refusal]), [[true, null]]);
    });

    it('the write, the claim and the outbox writer keep one plan per statement (generic plans)', async () => {
      const { rows } = await sql<{ proname: string; proconfig: string[] | null }>`
        select proname, proconfig from pg_proc where proname in ('rfq_write_quotes', 'rfq_claim_timestamps', 'rfq_append_events') order by proname`.execute(store.db);
      assert.deepEqual(rows.map((r) => [r.proname, r.proconfig]), [
        ['rfq_append_events', ['plan_cache_mode=force_generic_plan']],
        ['rfq_claim_timestamps', ['plan_cache_mode=force_generic_plan']],
        ['rfq_write_quotes', ['plan_cache_mode=force_generic_plan']],
      ]);
    });
  });
}
