/**
 * A perp execution's two database calls (src/store/perp-commit-functions.ts): the lock answers
 * the rows exactly as the driver reads them and claims a (signer, nonce) once; the write sets the
 * execution's columns (a null sets null, an absent key leaves the column), records its calls in
 * order, and writes the RFQ and quotes; an execution no longer held writes nothing at all, and a
 * row that moved under its lock rolls the whole transaction back.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { openSpotMarket } from './spot-market.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { lockForPerpCommit, writePerpTransition, type PerpWrite } from '../../src/store/perp-commit-functions.ts';

const NOW = 1_700_000_000_100;

for (const backend of backends()) {
  describe(`perp commit functions [${backend}]`, () => {
    let market: Awaited<ReturnType<typeof openSpotMarket>>;
    let store: Store;
    let taker: string;
    let maker: { makerId: string; makerAccount: string };
    before(async () => {
      market = await openSpotMarket(backend);
      store = market.store;
      ({ taker, ...maker } = market.market);
    });
    after(() => market.close());

    async function execution(): Promise<{ rfqId: string; quoteId: string; executionId: string }> {
      const rfqId = `rfq_${randomUUID()}`;
      const quoteId = `q_${randomUUID()}`;
      const executionId = `px_${randomUUID()}`;
      await store.db.insertInto('rfqs').values({
        id: rfqId, account_id: taker, instrument_id: 'ETH-USDC-SPOT', side: 'BUY', base_qty: 10n ** 18n, quote_limit: 5_000_000_000n, taker_fee_tenth_bp: 25, auto_accept: false,
        status: 'PENDING', created_at: 1_700_000_000_001, auction_ends_at: 1_700_000_600_000, settlement_deadline_secs: 1_700_003_600, quoted_at: null, settled_at: null,
        executed_pay_amount: null, executed_recv_amount: null, taker_fee: null, tx_hash: null, failure_code: null, failure_reason: null, selected_quote_id: null,
        idempotency_key: null, request_fingerprint: 'f', updated_at: 1_700_000_000_001,
      }).execute();
      await store.db.insertInto('quotes').values({
        id: quoteId, rfq_id: rfqId, maker_id: maker.makerId, maker_account_id: maker.makerAccount, version: 1, status: 'SUBMITTED', maker_pays_token: 'ETH',
        maker_pays_amount: 10n ** 18n, maker_receives_token: 'USDC', maker_receives_amount: 3_000_000_000n, taker_fee: 7_500_000n, taker_total: 3_007_500_000n,
        received_at: 1_700_000_000_002, acceptable_for_ms: 5000, settlement_mode: 'perp', settlement_deadline_secs: null, permit_signature: null, spender: null,
        delivery_deadline_secs: null, window_starts_at: null, window_ends_at: null, xchange: null, settled_at: null,
        tx_hash: null, created_at: 1_700_000_000_002, updated_at: 1_700_000_000_002, quote_hash: null, position: 1,
      }).execute();
      await store.db.insertInto('perp_executions').values({
        id: executionId, rfq_id: rfqId, quote_id: quoteId, account_id: taker, quote_version: 1, taker_order: '{}', signer: '0xab', nonce: 7, cloid: '0xc1',
        phase: 'checking', state: JSON.stringify({ phase: 'checking' }), taker_sent_at: null, taker_reply_at: null, failure_code: null,
        lease_owner: 'node_a', lease_until: NOW + 1000, next_at: NOW, created_at: NOW, updated_at: NOW,
      }).execute();
      return { rfqId, quoteId, executionId };
    }

    const transition = (ids: { rfqId: string; quoteId: string; executionId: string }, leaseOwner: string, quoteFrom = 'SUBMITTED'): PerpWrite => ({
      now: NOW + 5,
      execution: {
        id: ids.executionId, leaseOwner, phase: 'checking',
        columns: { phase: 'makerSending', state: { phase: 'makerSending', cascade: [] }, cloid: null, nonce: 9, next_at: NOW + 5, lease_until: NOW + 2000 },
        calls: [
          { kind: 'meta', quote_id: null, request: { type: 'meta' }, reply: { universe: [] }, error: null, started_at: NOW, ended_at: NOW + 1 },
          { kind: 'decision', quote_id: ids.quoteId, request: { from: 'checking' }, reply: { to: 'makerSending' }, error: null, started_at: NOW + 5, ended_at: NOW + 5 },
        ],
      },
      rfqs: [{ id: ids.rfqId, from: 'PENDING', to: 'QUOTED', fields: { quoted_at: NOW + 5, selected_quote_id: ids.quoteId } }],
      quotes: [{ id: ids.quoteId, from: quoteFrom, to: 'SELECTED', fields: { settlement_deadline_secs: 1_700_003_600, position: null } }],
      events: JSON.stringify([{ ord: 0, account_id: taker, topic: 'rfqStatus', frame: { kind: 'rfqStatus', id: ids.rfqId, n: 12.5 }, at: NOW + 5 }]),
    });

    it('locks and answers the rows as the driver reads them, and claims a (signer, nonce) once', async () => {
      const ids = await execution();
      const lock = (nonce: { signer: string; nonce: number } | null) => inTransaction(store.db, (tx) => lockForPerpCommit(tx, { rfqId: ids.rfqId, accountId: taker, quoteId: ids.quoteId, now: NOW, nonce }));
      const first = await lock({ signer: '0xAbC', nonce: 41 });
      assert.deepEqual(first.rfq, await store.db.selectFrom('rfqs').selectAll().where('id', '=', ids.rfqId).executeTakeFirstOrThrow());
      assert.deepEqual(first.quotes, await store.db.selectFrom('quotes').selectAll().where('rfq_id', '=', ids.rfqId).execute());
      assert.deepEqual([first.claimed, first.protections], [true, []]);
      assert.equal((await lock({ signer: '0xabc', nonce: 41 })).claimed, false, 'claimed once; signers compare lower-cased');
      assert.equal((await lock(null)).claimed, true, 'nothing asked, nothing refused');
      const claim = await store.db.selectFrom('venue_nonce_claims').selectAll().where('signer', '=', '0xabc').executeTakeFirstOrThrow();
      assert.deepEqual([claim.nonce, claim.purpose, claim.claimed_at], [41, 'takerOrder', NOW]);
    });

    it('writes the execution, its calls in order, the RFQ and the quote, and answers the rows as stored', async () => {
      const ids = await execution();
      const written = await inTransaction(store.db, (tx) => writePerpTransition(tx, transition(ids, 'node_a')));
      assert.equal(written.lost, false);
      const outbox = await store.db.selectFrom('outbox').select(['id', 'account_id', 'topic', 'seq', 'frame']).where('account_id', '=', taker).where('topic', '=', 'rfqStatus').execute();
      assert.equal(outbox.length, 1);
      assert.deepEqual(written.lost ? null : written.events, outbox.map((r) => [r.id, r.seq]), 'the events are appended by the same call, which answers their ids and seqs');
      assert.deepEqual(outbox[0]!.frame, { kind: 'rfqStatus', id: ids.rfqId, n: 12.5 });
      const row = await store.db.selectFrom('perp_executions').selectAll().where('id', '=', ids.executionId).executeTakeFirstOrThrow();
      const rfq = await store.db.selectFrom('rfqs').selectAll().where('id', '=', ids.rfqId).executeTakeFirstOrThrow();
      const quotes = await store.db.selectFrom('quotes').selectAll().where('rfq_id', '=', ids.rfqId).execute();
      assert.deepEqual(written, { lost: false, execution: row, rfqs: [rfq], quotes, events: outbox.map((r) => [r.id, r.seq]) });
      assert.deepEqual([row.phase, row.state, row.cloid, row.nonce, row.signer, row.lease_owner, row.updated_at], ['makerSending', { phase: 'makerSending', cascade: [] }, null, 9, '0xab', 'node_a', NOW + 5]);
      assert.deepEqual([rfq.status, rfq.quoted_at, rfq.selected_quote_id, quotes[0]!.status, quotes[0]!.position, quotes[0]!.settlement_deadline_secs], ['QUOTED', NOW + 5, ids.quoteId, 'SELECTED', null, 1_700_003_600]);
      const calls = await store.db.selectFrom('perp_execution_calls').selectAll().where('execution_id', '=', ids.executionId).orderBy('id').execute();
      assert.deepEqual(calls.map((c) => [c.kind, c.request, c.reply, c.started_at, c.ended_at]), [['meta', { type: 'meta' }, { universe: [] }, NOW, NOW + 1], ['decision', { from: 'checking' }, { to: 'makerSending' }, NOW + 5, NOW + 5]]);
    });

    it('an execution no longer held writes nothing at all; a row moved under its lock rolls everything back', async () => {
      const ids = await execution();
      assert.deepEqual(await inTransaction(store.db, (tx) => writePerpTransition(tx, transition(ids, 'node_b'))), { lost: true });
      await assert.rejects(inTransaction(store.db, (tx) => writePerpTransition(tx, transition(ids, 'node_a', 'SELECTED'))), /quote batch wrote 0 of 1 rows/);
      const row = await store.db.selectFrom('perp_executions').selectAll().where('id', '=', ids.executionId).executeTakeFirstOrThrow();
      const rfq = await store.db.selectFrom('rfqs').selectAll().where('id', '=', ids.rfqId).executeTakeFirstOrThrow();
      assert.deepEqual([row.phase, row.nonce, rfq.status], ['checking', 7, 'PENDING']);
      assert.equal((await store.db.selectFrom('perp_execution_calls').select('id').where('execution_id', '=', ids.executionId).execute()).length, 0);
      assert.equal((await store.db.selectFrom('outbox').select('id').where('frame', '@>', JSON.stringify({ id: ids.rfqId }) as never).execute()).length, 0, 'and no event');
    });
  });
}
