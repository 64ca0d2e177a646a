/**
 * Group-committed spot accepts (src/services/rfq/accept-batch.ts) on each backend, driven through
 * the node's own batcher so that the accepts of a test share one batch: one accept is sent first
 * and the rest in the same tick, so they gather while it is in flight (the batcher's counter
 * proves it). Each item must be answered as the accept alone answers it: a refusal (funds, a
 * re-priced quote, someone else's RFQ) is that item's alone and the others commit; two accepts of
 * one RFQ, or one claim twice, never share a batch; a maker's protection tripped inside the batch
 * is judged again, alone, after it commits; every committed accept has its frames, each taker's
 * balances once per batch.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { INSTRUMENT, quotedRfq } from '../../helpers/protection.ts';
import { acceptBatcher } from '../../../src/services/rfq/accept-batch.ts';
import { ServiceError } from '../../../src/domain/errors.ts';
import type { DeferredClaim } from '../../../src/services/auth/timestamp-claims.ts';
import type { RfqClient } from '../../../src/client/rfq-client.ts';

interface Taker {
  client: RfqClient;
  who: { accountId: string; address: string };
}

/** What an accept answered: the status it reports, or its refusal's code. */
async function outcome(promise: Promise<{ status: string; replayed: boolean }>): Promise<string> {
  try {
    const result = await promise;
    return result.replayed ? `replayed ${result.status}` : result.status;
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
}

for (const backend of backends()) {
  describe(`group-committed accepts [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());

    async function taker(usdc: string): Promise<Taker> {
      const { client, account } = await h.newUser();
      await h.fund(account.address, { USDC: usdc });
      return { client, who: { accountId: client.login!.userId, address: account.address } };
    }

    /** Sends `first` alone, then `rest` in the same tick; answers every outcome and how many batches they took. */
    async function inOneBatch(first: () => Promise<{ status: string; replayed: boolean }>, rest: Array<() => Promise<{ status: string; replayed: boolean }>>) {
      const batcher = acceptBatcher(h.node.context.service);
      const before = batcher.sent.batches;
      const all = [first(), ...rest.map((send) => send())];
      const outcomes = await Promise.all(all.map(outcome));
      return { outcomes, batches: batcher.sent.batches - before };
    }

    const accept = (t: Taker, rfqId: string, quoteId: string, extra: { expectedVersion?: number; claim?: DeferredClaim } = {}) => () =>
      acceptBatcher(h.node.context.service).accept({
        taker: t.who,
        rfqId,
        input: { quoteId, ...(extra.expectedVersion !== undefined ? { expectedVersion: extra.expectedVersion } : {}) },
        claim: extra.claim,
        arrivedAt: Date.now(),
      });

    async function frameCounts(since: number, accountId: string): Promise<Record<string, number>> {
      const rows = await h.node.store.db.selectFrom('outbox').select(['topic', 'frame']).where('id', '>', since).where('account_id', '=', accountId).execute();
      const counts: Record<string, number> = {};
      for (const r of rows) {
        const key = `${r.topic} ${(r.frame as { status?: string }).status ?? (r.frame as { kind: string }).kind}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return counts;
    }

    async function lastOutboxId(): Promise<number> {
      const row = await h.node.store.db.selectFrom('outbox').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
      return Number(row?.id ?? 0);
    }

    it('answers each accept of a batch on its own: funds, version and owner refusals leave the others committed', async () => {
      const maker = (await h.newMaker(['ETH-USDC'])).client;
      const blocker = await taker('100000');
      const short = await taker('4000'); // covers one 1 ETH purchase at 3,000 USDC, not two
      const other = await taker('100000');
      const b0 = await quotedRfq(blocker.client, maker);
      const s1 = await quotedRfq(short.client, maker);
      const s2 = await quotedRfq(short.client, maker);
      const o1 = await quotedRfq(other.client, maker);
      const o2 = await quotedRfq(other.client, maker);
      const since = await lastOutboxId();
      const { outcomes, batches } = await inOneBatch(accept(blocker, b0.rfqId, b0.quoteId), [
        accept(short, s1.rfqId, s1.quoteId),
        accept(short, s2.rfqId, s2.quoteId),
        accept(other, o1.rfqId, o1.quoteId, { expectedVersion: 2 }),
        accept(other, o2.rfqId, o2.quoteId),
        accept(short, `rfq-${randomUUID()}`, o2.quoteId),
        accept(other, b0.rfqId, b0.quoteId),
      ]);
      assert.equal(batches, 2, 'the blocker alone, then the six together');
      assert.deepEqual(outcomes, ['QUOTED', 'QUOTED', 'INSUFFICIENT_BALANCE', 'QUOTE_VERSION_MISMATCH', 'QUOTED', 'NOT_FOUND', 'NOT_FOUND']);
      const rfqStatus = async (client: RfqClient, id: string) => (await client.getRfq(id)).status;
      assert.deepEqual(
        [await rfqStatus(short.client, s1.rfqId), await rfqStatus(short.client, s2.rfqId), await rfqStatus(other.client, o1.rfqId), await rfqStatus(other.client, o2.rfqId)],
        ['QUOTED', 'PENDING', 'PENDING', 'QUOTED'],
      );
      // Exactly one lock for the short taker: the first in arrival order.
      const usdc = (await short.client.balances()).balances.find((b) => b.token === 'USDC')!;
      const locked = BigInt(Math.round(Number(usdc.locked) * 1e6));
      assert.ok(locked > 3_000_000_000n && locked < 4_000_000_000n, `one purchase locked: ${usdc.locked}`);
      assert.equal(Number(usdc.available) + Number(usdc.locked), 4000);
      // Frames of what committed only, each taker's balances once for the batch.
      assert.deepEqual(await frameCounts(since, short.who.accountId), { 'rfqStatus QUOTED': 1, 'balances balanceSnapshot': 1 });
      assert.deepEqual(await frameCounts(since, other.who.accountId), { 'rfqStatus QUOTED': 1, 'balances balanceSnapshot': 1 });
    });

    it('never puts two accepts of one RFQ, or one claim twice, in one batch', async () => {
      const maker = (await h.newMaker(['ETH-USDC'])).client;
      const blocker = await taker('100000');
      const t = await taker('100000');
      const b0 = await quotedRfq(blocker.client, maker);
      const r1 = await quotedRfq(t.client, maker);
      const r2 = await quotedRfq(t.client, maker);
      const r3 = await quotedRfq(t.client, maker);
      const claim = (signedAt: number): DeferredClaim => ({ accessKey: t.client.login!.accessKey, signedAt, timestampClaimed: false });
      const signedAt = Date.now() + 1_000_000 + Math.floor(Math.random() * 1_000_000);
      const { outcomes, batches } = await inOneBatch(accept(blocker, b0.rfqId, b0.quoteId), [
        accept(t, r1.rfqId, r1.quoteId, { expectedVersion: 1 }),
        accept(t, r1.rfqId, r1.quoteId, { expectedVersion: 1 }),
        accept(t, r2.rfqId, r2.quoteId, { claim: claim(signedAt) }),
        accept(t, r3.rfqId, r3.quoteId, { claim: claim(signedAt) }),
      ]);
      assert.equal(batches, 3, 'the blocker; r1 and r2 with the claim; the repeats');
      assert.deepEqual(outcomes, ['QUOTED', 'QUOTED', 'replayed QUOTED', 'QUOTED', 'TIMESTAMP_REUSED']);
      assert.equal((await t.client.getRfq(r3.rfqId)).status, 'PENDING');
    });

    it('marks a refused accept\'s claim as taken when its batch commits (it is not claimed again)', async () => {
      const maker = (await h.newMaker(['ETH-USDC'])).client;
      const blocker = await taker('100000');
      const t = await taker('100000');
      const b0 = await quotedRfq(blocker.client, maker);
      const r1 = await quotedRfq(t.client, maker);
      const claim: DeferredClaim = { accessKey: t.client.login!.accessKey, signedAt: Date.now() + 3_000_000 + Math.floor(Math.random() * 1_000_000), timestampClaimed: false };
      const { outcomes } = await inOneBatch(accept(blocker, b0.rfqId, b0.quoteId), [accept(t, r1.rfqId, r1.quoteId, { expectedVersion: 7, claim })]);
      assert.deepEqual(outcomes, ['QUOTED', 'QUOTE_VERSION_MISMATCH']);
      assert.equal(claim.timestampClaimed, true);
      const again = await outcome(accept(t, r1.rfqId, r1.quoteId, { claim: { ...claim, timestampClaimed: false } })());
      assert.equal(again, 'TIMESTAMP_REUSED');
    });

    it('judges alone, after the batch commits, an accept whose maker the batch itself tripped', async () => {
      const maker = await h.newMaker(['ETH-USDC']);
      await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedQuotes: 1 });
      const otherMaker = (await h.newMaker(['ETH-USDC'])).client;
      const blocker = await taker('100000');
      const broke = await taker('10'); // cannot pay: refused for funds after the trip was counted
      const rich = await taker('100000');
      const late = await taker('100000');
      const b0 = await quotedRfq(blocker.client, otherMaker);
      const r1 = await quotedRfq(broke.client, maker.client);
      const r2 = await quotedRfq(rich.client, maker.client);
      const r3 = await quotedRfq(late.client, maker.client);
      const { outcomes, batches } = await inOneBatch(accept(blocker, b0.rfqId, b0.quoteId), [
        accept(broke, r1.rfqId, r1.quoteId),
        accept(rich, r2.rfqId, r2.quoteId),
        accept(late, r3.rfqId, r3.quoteId),
      ]);
      assert.equal(batches, 2);
      // The broke taker's accept counted first and tripped the tentative count; refused for funds,
      // it selected nothing, so the rich taker's (run alone) selects and trips it, and the late one is refused.
      assert.deepEqual(outcomes, ['QUOTED', 'INSUFFICIENT_BALANCE', 'QUOTED', 'QUOTE_NOT_ACCEPTABLE']);
      const protections = await h.node.store.db.selectFrom('maker_protections').select(['triggered_at']).where('instrument_id', '=', INSTRUMENT).where('maker_account_id', '=', maker.client.login!.userId).execute();
      assert.equal(protections.length, 1);
      assert.notEqual(protections[0]!.triggered_at, null);
      const selections = await h.node.store.db.selectFrom('maker_protection_selections').select('quote_id').where('maker_account_id', '=', maker.client.login!.userId).execute();
      assert.deepEqual(selections.map((s) => s.quote_id), [r2.quoteId]);
    });

    it('runs the accept of an autoAccept RFQ alone and re-locks its bound exactly', async () => {
      const maker = (await h.newMaker(['ETH-USDC'])).client;
      const blocker = await taker('100000');
      const t = await taker('100000');
      const b0 = await quotedRfq(blocker.client, maker);
      const rfq = await t.client.createRfq({ instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: true, windowMs: 60_000, idempotencyKey: randomUUID() });
      const quote = await maker.submitQuote({ rfqId: rfq.rfqId, instrumentId: INSTRUMENT, side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3000' } });
      const boundLocked = (await t.client.balances()).balances.find((b) => b.token === 'USDC')!.locked;
      const { outcomes } = await inOneBatch(accept(blocker, b0.rfqId, b0.quoteId), [accept(t, rfq.rfqId, quote.quoteId)]);
      assert.deepEqual(outcomes, ['QUOTED', 'QUOTED']);
      const usdc = (await t.client.balances()).balances.find((b) => b.token === 'USDC')!;
      assert.ok(Number(usdc.locked) < Number(boundLocked), `re-locked to the winner's cost: ${usdc.locked} < ${boundLocked}`);
      assert.equal(Number(usdc.available) + Number(usdc.locked), 100000);
    });
  });
}
