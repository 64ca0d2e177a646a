/**
 * The quote writer hands its node's dispatcher the outbox rows a batch wrote, built from the
 * frames it sent and the `[id, seq]` that `rfq_append_events` returned (no frames come back):
 * they must be the rows as stored, quote ids and versions included, for new quotes, a re-quote in
 * the same batch and beside refused items (src/services/rfq/write-quote.ts `framesWritten`).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../../helpers/backends.ts';
import type { Store } from '../../../src/store/database.ts';
import { onOutboxCommit, type CommittedEvent } from '../../../src/store/outbox.ts';
import { QuoteWriter, type QuoteWrite, type QuoteWriteOutcome } from '../../../src/services/rfq/write-quote.ts';
import { openSpotMarket, type SpotMarket } from '../../store/spot-market.ts';

for (const backend of backends()) {
  describe(`quote writer hand-over [${backend}]`, () => {
    let store: Store;
    let market: SpotMarket;
    let close: () => Promise<void>;
    before(async () => {
      ({ store, market, close } = await openSpotMarket(backend));
    });
    after(async () => {
      await close();
    });

    async function rfq(status: 'PENDING' | 'CANCELLED'): Promise<string> {
      const id = `rfq_${randomUUID()}`;
      await store.db.insertInto('rfqs').values({
        id, account_id: market.taker, instrument_id: 'ETH-USDC-SPOT', side: 'BUY', base_qty: 10n ** 18n, quote_limit: null, taker_fee_tenth_bp: 25, auto_accept: false,
        status, created_at: 1, auction_ends_at: 10 ** 13, settlement_deadline_secs: 10 ** 10, quoted_at: null, settled_at: null, executed_pay_amount: null,
        executed_recv_amount: null, taker_fee: null, tx_hash: null, failure_code: null, failure_reason: null, selected_quote_id: null, idempotency_key: null,
        request_fingerprint: 'f', updated_at: 1,
      }).execute();
      return id;
    }

    const quote = (rfqId: string, amount: bigint, now: number): QuoteWrite => {
      const frame = (kind: string) => ({
        kind, rfqId, quoteId: null, version: null, makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: String(amount) },
        receivedAt: now, acceptableUntil: null, status: 'SUBMITTED', settlementMode: 'promised',
      });
      return {
        claim: null, quoteId: `qt_${randomUUID()}`, rfqId, takerAccountId: market.taker, makerAccountId: market.makerAccount, instrumentId: 'ETH-USDC-SPOT',
        pair: 'ETH-USDC', mode: 'promised', makerPaysToken: 'ETH', makerPaysAmount: 10n ** 18n, makerReceivesToken: 'USDC', makerReceivesAmount: amount,
        takerFee: 0n, takerTotal: amount, acceptableForMs: null, now, takerFrame: frame('quoteUpdate'), makerFrame: frame('quoteStatus'),
      };
    };

    it('hands over the rows as stored: new quotes, a re-quote in the same batch, refused items beside them', async () => {
      const [open1, open2, closed] = [await rfq('PENDING'), await rfq('PENDING'), await rfq('CANCELLED')];
      const last = Number((await store.db.selectFrom('outbox').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0);
      const heard: Array<readonly CommittedEvent[] | null> = [];
      const unsubscribe = onOutboxCommit(store.db, (events) => heard.push(events));
      const writer = new QuoteWriter(store.db);
      let outcomes: QuoteWriteOutcome[];
      try {
        // The first goes alone; the rest arrive while it is in flight and share the next batch.
        outcomes = await Promise.all([
          writer.write(quote(open1, 3_000_000_000n, 100)),
          writer.write(quote(open2, 3_001_000_000n, 101)),
          writer.write(quote(closed, 3_002_000_000n, 102)),
          writer.write(quote(open1, 2_999_000_000n, 103)),
          writer.write(quote(open2, 2_998_000_000n, 104)),
        ]);
      } finally {
        unsubscribe();
      }
      assert.deepEqual(outcomes.map((o) => [o.rfqOpen, o.version]), [[true, 1], [true, 1], [false, null], [true, 2], [true, 2]]);
      assert.equal(outcomes[3]!.quoteId, outcomes[0]!.quoteId, 're-quoted, not a new quote');
      const stored = await store.db.selectFrom('outbox').select(['id', 'account_id', 'topic', 'seq', 'frame']).where('id', '>', last).orderBy('id').execute();
      assert.equal(stored.length, 8, 'two frames per quote written, none for the refused item');
      assert.ok(heard.every((events) => events !== null), 'every batch handed its rows over');
      assert.deepEqual(heard.flatMap((events) => events ?? []), stored);
      // The first batch's quote, then the second's in the write's loop order (RFQ id, then arrival).
      const rfqOf = [open1, open2, closed, open1, open2];
      const loopOrder = [0, ...[1, 3, 4].sort((a, b) => (rfqOf[a] === rfqOf[b] ? a - b : rfqOf[a]! < rfqOf[b]! ? -1 : 1))];
      assert.deepEqual(
        stored.map((r) => [r.topic, (r.frame as { quoteId: string }).quoteId, (r.frame as { version: number }).version]),
        loopOrder.flatMap((ord) => [['quotes', outcomes[ord]!.quoteId, outcomes[ord]!.version], ['quoteStatus', outcomes[ord]!.quoteId, outcomes[ord]!.version]]),
      );
    });
  });
}
