/**
 * A perp execution's lease with its checks' read in one call (src/store/perp-lease-function.ts,
 * `rfq_perp_acquire`): taken only when no one holds the execution, it is due and it has not
 * ended; the row comes back as the driver reads it; in `checking` it comes with what the checks
 * read (addresses, exact amounts beyond 2^53, the maker's signed order and cancel), and without it
 * in any other phase.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { openSpotMarket } from './spot-market.ts';
import { acquirePerpExecution } from '../../src/store/perp-lease-function.ts';

const NOW = 1_700_000_000_100;
// 2^53 + 1 and more: a JSON number would lose the last digits.
const PAYS = 10n ** 18n + 1n;
const RECEIVES = 3_000_000_000_000_000_001n;

for (const backend of backends()) {
  describe(`perp lease function [${backend}]`, () => {
    let market: Awaited<ReturnType<typeof openSpotMarket>>;
    let store: Store;
    before(async () => {
      market = await openSpotMarket(backend);
      store = market.store;
    });
    after(() => market.close());

    async function execution(phase = 'checking', lease: { owner: string | null; until: number } = { owner: null, until: 0 }, nextAt = NOW): Promise<{ rfqId: string; quoteId: string; id: string }> {
      const { taker, makerId, makerAccount } = market.market;
      const rfqId = `rfq_${randomUUID()}`;
      const quoteId = `q_${randomUUID()}`;
      const id = `px_${randomUUID()}`;
      await store.db.insertInto('rfqs').values({
        id: rfqId, account_id: taker, instrument_id: 'ETH-USDC-SPOT', side: 'SELL', base_qty: PAYS, quote_limit: RECEIVES, taker_fee_tenth_bp: 25, auto_accept: false,
        status: 'PENDING', created_at: NOW, auction_ends_at: NOW + 600_000, settlement_deadline_secs: 1_700_003_600, quoted_at: null, settled_at: null,
        executed_pay_amount: null, executed_recv_amount: null, taker_fee: null, tx_hash: null, failure_code: null, failure_reason: null, selected_quote_id: null,
        idempotency_key: null, request_fingerprint: 'f', updated_at: NOW,
      }).execute();
      await store.db.insertInto('quotes').values({
        id: quoteId, rfq_id: rfqId, maker_id: makerId, maker_account_id: makerAccount, version: 1, status: 'SUBMITTED', maker_pays_token: 'ETH',
        maker_pays_amount: PAYS, maker_receives_token: 'USDC', maker_receives_amount: RECEIVES, taker_fee: 1n, taker_total: RECEIVES + 1n,
        received_at: NOW, acceptable_for_ms: 5000, settlement_mode: 'perp', settlement_deadline_secs: null, permit_signature: null, spender: null,
        delivery_deadline_secs: null, window_starts_at: null, window_ends_at: null, xchange: null, settled_at: null,
        tx_hash: null, created_at: NOW, updated_at: NOW, quote_hash: null, position: 1,
      }).execute();
      await store.db.insertInto('perp_quote_orders').values({
        quote_id: quoteId, version: 1, asset_index: 4, cloid: '0xc1', maker_order: '{"action":{"type":"order"},"nonce":5}', maker_order_signer: '0xm',
        maker_cancel: '{"action":{"type":"cancelByCloid"},"nonce":6}', maker_cancel_signer: '0xm', updated_at: NOW,
      }).execute();
      await store.db.insertInto('perp_executions').values({
        id, rfq_id: rfqId, quote_id: quoteId, account_id: taker, quote_version: 1, taker_order: '{"nonce":7}', signer: null, nonce: null, cloid: null,
        phase, state: JSON.stringify({ phase, cascade: [quoteId], n: 1.5 }), taker_sent_at: null, taker_reply_at: null, failure_code: null,
        lease_owner: lease.owner, lease_until: lease.until, next_at: nextAt, created_at: NOW, updated_at: NOW,
      }).execute();
      return { rfqId, quoteId, id };
    }

    const acquire = (id: string, owner = 'node_a', now = NOW) => acquirePerpExecution(store.db, { id, owner, now, until: now + 5000 });

    it('takes a free, due execution in checking, with the row as the driver reads it and the checks read exact', async () => {
      const { taker, makerAccount } = market.market;
      const ids = await execution();
      const taken = await acquire(ids.id);
      assert.ok(taken);
      const stored = await store.db.selectFrom('perp_executions').selectAll().where('id', '=', ids.id).executeTakeFirstOrThrow();
      assert.deepEqual(taken.row, stored);
      assert.deepEqual([stored.lease_owner, stored.lease_until], ['node_a', NOW + 5000]);
      assert.deepEqual(taken.row.state, { phase: 'checking', cascade: [ids.quoteId], n: 1.5 });
      assert.deepEqual(taken.checksRead, {
        account_id: taker, instrument_id: 'ETH-USDC-SPOT', side: 'SELL', taker_fee_tenth_bp: 25,
        taker_address: '0x0000000000000000000000000000000000000001', maker_account_id: makerAccount,
        maker_pays_amount: PAYS, maker_receives_amount: RECEIVES, maker_address: '0x0000000000000000000000000000000000000002',
        maker_order: '{"action":{"type":"order"},"nonce":5}', maker_cancel: '{"action":{"type":"cancelByCloid"},"nonce":6}',
      });
    });

    it('leaves an execution another node holds, one not yet due, and one that ended', async () => {
      const held = await execution('checking', { owner: 'node_b', until: NOW + 1 });
      assert.equal(await acquire(held.id), null);
      assert.equal((await store.db.selectFrom('perp_executions').select('lease_owner').where('id', '=', held.id).executeTakeFirstOrThrow()).lease_owner, 'node_b');
      assert.ok(await acquire(held.id, 'node_a', NOW + 1), 'taken once the lease has run out');
      assert.equal(await acquire((await execution('checking', { owner: null, until: 0 }, NOW + 10)).id), null, 'not due');
      for (const phase of ['refused', 'ignored', 'done']) assert.equal(await acquire((await execution(phase)).id), null, phase);
      assert.equal(await acquire(`px_${randomUUID()}`), null, 'no such execution');
    });

    it('answers no checks read past checking', async () => {
      const ids = await execution('makerSending');
      const taken = await acquire(ids.id);
      assert.ok(taken);
      assert.equal(taken.row.phase, 'makerSending');
      assert.equal(taken.checksRead, null);
    });
  });
}
