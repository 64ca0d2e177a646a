/**
 * Perp accepts refused after the 202 (DESIGN.md 9.3 steps 1-2) over HTTP against the venue
 * simulator, on both databases: the taker's order signed by an API wallet (approved: executed;
 * expired or unknown: refused), the instrument's rate changed between the quote and the accept
 * (refused), and an accept racing the auction close (202: executed; AUCTION_CLOSED: CANCELLED).
 * A refusal leaves the quote FAILED, the RFQ PENDING and nothing sent to the venue.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { parseUnits } from '../../../sim/venue/decimal.ts';
import { ApiError } from '../../../src/client/http.ts';
import { elapse, eventually } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import type { Harness } from '../../helpers/harness.ts';
import { ended, PerpFixture, takerOrder, type VenueUser } from '../../helpers/perp.ts';

/** A venue size in the simulator's units (exact, unlike a float). */
const units = (text: string): bigint => parseUnits(text, { signed: true }) ?? assert.fail(`not a decimal: ${text}`);

const ETH_PERP = { base: 'ETH', quote: 'USDC', type: 'PERP' as const, minQuoteNotional: '10' };

for (const backend of backends()) {
  describe(`perp accept refusals [${backend}]`, () => {
    let f: PerpFixture;
    let h: Harness;

    before(async () => {
      f = await PerpFixture.start(backend);
      h = f.h;
    });
    after(async () => f?.close());

    /** The refusal's reason, from the checks' decision stored with the execution. */
    async function refusalReason(rfqId: string): Promise<string> {
      const decisions = await h.node.store.db
        .selectFrom('perp_execution_calls')
        .innerJoin('perp_executions', 'perp_executions.id', 'perp_execution_calls.execution_id')
        .select('perp_execution_calls.request')
        .where('perp_executions.rfq_id', '=', rfqId)
        .where('perp_execution_calls.kind', '=', 'decision')
        .execute();
      const effects = decisions.flatMap((d) => (d.request as unknown as { effects: { kind: string; reason?: string }[] }).effects);
      return effects.find((e) => e.kind === 'refuseQuote')?.reason ?? '';
    }

    /** Accepts the RFQ's only quote with `order` and waits for the checks' verdict. */
    async function acceptAndSettle(taker: VenueUser, rfqId: string, quoteId: string, signer: PrivateKeyAccount) {
      await taker.client.accept(rfqId, { quoteId, perpTakerOrder: await takerOrder(signer, 'BUY', '0.1', '3500.1') });
      return eventually(() => taker.client.getQuote(quoteId), (q) => q.status !== 'SUBMITTED');
    }

    async function assertRefused(taker: VenueUser, rfqId: string, quoteId: string, why: string): Promise<void> {
      assert.equal((await taker.client.getQuote(quoteId)).status, 'FAILED', `${why}: the quote is FAILED`);
      assert.equal((await taker.client.getRfq(rfqId)).status, 'PENDING', `${why}: the RFQ is still PENDING`);
      const sent = (await f.callKinds(rfqId)).filter((c) => c.kind === 'makerOrder' || c.kind === 'takerOrder');
      assert.deepEqual(sent, [], `${why}: nothing sent to the venue`);
      assert.equal(await f.ethPosition(taker.account.address), '0', `${why}: the taker's venue position is unchanged`);
    }

    it('an API wallet the taker approved signs the order: executed and SETTLED for the account', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const agent = privateKeyToAccount(generatePrivateKey());
      await f.exchange(taker.account).approveAgent({ agentAddress: agent.address, agentName: `rfq valid_until ${Date.now() + 3_600_000}` });
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      await acceptAndSettle(taker, rfqId, quoteIds[0]!, agent);
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).perpFilledSize, '0.1');
      assert.equal(await f.ethPosition(taker.account.address), '0.1', 'the fill is the account\'s, not the API wallet\'s');
      assert.ok((await f.callKinds(rfqId)).some((c) => c.kind === 'extraAgents'), 'the signer was checked against the API wallets');
    });

    it('an expired API wallet of the taker is refused', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const agent = privateKeyToAccount(generatePrivateKey());
      const validUntil = Date.now() - 60_000;
      await f.exchange(taker.account).approveAgent({ agentAddress: agent.address, agentName: `rfq valid_until ${validUntil}` });
      const listed = await f.info.extraAgents({ user: taker.account.address });
      assert.ok(listed.some((a) => a.address === agent.address.toLowerCase() && a.validUntil === validUntil), 'the venue lists it, expired');
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      assert.equal((await acceptAndSettle(taker, rfqId, quoteIds[0]!, agent)).status, 'FAILED');
      await assertRefused(taker, rfqId, quoteIds[0]!, 'expired API wallet');
      assert.match(await refusalReason(rfqId), /unexpired API wallet/);
    });

    it('a key that is no API wallet of the taker (unknown at the venue) is refused', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const stranger = privateKeyToAccount(generatePrivateKey());
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      assert.equal((await acceptAndSettle(taker, rfqId, quoteIds[0]!, stranger)).status, 'FAILED');
      await assertRefused(taker, rfqId, quoteIds[0]!, 'unknown signer');
      assert.match(await refusalReason(rfqId), /unexpired API wallet/);
    });

    it('the instrument\'s rate changed between the quote and the accept: refused whatever the approval', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker('0.05%');
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const quoted = await taker.client.getQuote(quoteIds[0]!);
      assert.equal(quoted.builderFeeTenthBp, 20, 'the quote carries the rate as at submission');
      await h.admin.putInstrument('ETH-USDC-PERP', { ...ETH_PERP, takerFeeTenthBp: 30 });
      try {
        // The order obeys the quote (rule 11: f = 20), but the rate the builder approval must cover moved.
        assert.equal((await acceptAndSettle(taker, rfqId, quoteIds[0]!, taker.account)).status, 'FAILED');
        await assertRefused(taker, rfqId, quoteIds[0]!, 'rate changed');
        assert.match(await refusalReason(rfqId), /rate changed from 20 to 30/);
      } finally {
        await h.admin.putInstrument('ETH-USDC-PERP', { ...ETH_PERP, takerFeeTenthBp: 20 });
      }
    });

    it('an accept racing the auction close is executed when answered 202 (the close waits for its checks), else AUCTION_CLOSED and CANCELLED', async (t) => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const outcomes: string[] = [];
      // Accepts landing from just before the close to just after it.
      for (const lead of [600, 300, 150, 60, 0]) {
        const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }], 1_500);
        const rfq = await taker.client.getRfq(rfqId);
        const held = await f.ethPosition(taker.account.address);
        const order = await takerOrder(taker.account, 'BUY', '0.1', '3500.1');
        await elapse(rfq.auctionEndsAt - lead - Date.now(), 'the accept lands this lead before the close');
        let answered = '202';
        try {
          await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: order });
        } catch (error) {
          assert.ok(error instanceof ApiError, String(error));
          assert.equal(error.code, 'AUCTION_CLOSED', `lead ${lead}: an accept after the close is AUCTION_CLOSED`);
          answered = error.code;
        }
        const end = await eventually(() => taker.client.getRfq(rfqId), ended);
        const quote = await taker.client.getQuote(quoteIds[0]!);
        const calls = await f.callKinds(rfqId);
        const sent = calls.filter((c) => c.kind === 'makerOrder' || c.kind === 'takerOrder').map((c) => c.kind);
        const position = await f.ethPosition(taker.account.address);
        if (answered === '202') {
          // Accepted in time: the close leaves the RFQ to the executor (an acceptance), which executes it.
          assert.equal(end.status, 'SETTLED', `lead ${lead}: ${JSON.stringify(end)}`);
          assert.equal(quote.status, 'SETTLED', `lead ${lead}`);
          assert.deepEqual(sent, ['makerOrder', 'takerOrder'], `lead ${lead}: each order sent once`);
          assert.equal(units(position), units(held) + units('0.1'), `lead ${lead}: the taker's position grew by the fill`);
        } else {
          assert.equal(end.status, 'CANCELLED', `lead ${lead}: ${JSON.stringify(end)}`);
          assert.equal(quote.status, 'EXPIRED', `lead ${lead}: the quote expired with the auction`);
          assert.deepEqual(sent, [], `lead ${lead}: nothing sent to the venue`);
          assert.equal(position, held, `lead ${lead}: the taker's position is unchanged`);
        }
        outcomes.push(`lead ${lead} ms: ${answered}, ${end.status}`);
      }
      // Which side won each race depends on the machine's load: reported, each end checked above.
      t.diagnostic(outcomes.join('; '));
    });
  });
}
