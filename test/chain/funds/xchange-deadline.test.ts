/**
 * An xchange `execute` is never signed after its deadline. The adapter refuses a
 * swap once `block.timestamp` passes its expiration (the RFQ's settlementDeadline), so an execute
 * signed then can only revert. With the broadcaster backed up (not running while the deadline
 * passes):
 * - a queued execute ends EXPIRED unsigned, custody's nonce untouched, and the RFQ fails with the
 *   taker's funds released;
 * - an execute already sent but stuck (by a low fee) is not fee-bumped past the deadline: its nonce
 *   is freed by a zero-value cancel instead.
 * And one bad log must not stop the follower (part 2): a swap whose taker lock does not cover it
 * (settle-spot.ts refuses to book it) is quarantined by the xchange handler after the step's
 * retries, and a later deposit is still credited.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { parseGwei, parseUnits } from 'viem';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { CustodyBroadcaster, type BroadcasterOptions } from '../../../src/chain/custody/custody-broadcaster.ts';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { custodyTestAccount, startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';
import { balanceOf, rpc, waitFor } from './helpers.ts';
import { acceptedXchangeQuote, ETH_RAW, setUpXchangeMaker, type XchangeMaker } from './xchange-maker.ts';

const NO_BROADCASTER = new Set(['auctions', 'settlement', 'dispatch']);

for (const backend of backends()) {
  describe(`xchange execute and its deadline (${backend})`, () => {
    let chain: TestChain;
    let database: TestDatabase;
    let h: Harness;
    let maker: XchangeMaker;

    const broadcaster = (options: Partial<BroadcasterOptions> = {}) =>
      new CustodyBroadcaster({ deps: h.node.context.service, chain: h.node.context.chain!, logger: pino({ level: 'silent' }), bumpAfterMs: 3_600_000, ...options });
    const nonceCount = async () => Number(await rpc<string>(chain, 'eth_getTransactionCount', [chain.custody, 'latest']));
    const executionOf = (quoteId: string) => h.node.store.db.selectFrom('custody_transfers').selectAll().where('purpose', '=', 'xchange').where('owner_id', '=', quoteId).execute();
    const attemptsOf = (transferId: string) => h.node.store.db.selectFrom('custody_tx_attempts').select(['kind', 'tx_hash']).where('transfer_id', '=', transferId).orderBy('attempt').execute();

    before(async () => {
      chain = await startTestChain();
      database = await createTestDatabase(backend);
      h = await startHarness(backend, { database, chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, workers: NO_BROADCASTER });
      // Room for a loaded machine between the RFQ and the accept; the deadline follows the window.
      await h.admin.putSettings({ settlementHeadroomSecs: 2 });
      maker = await setUpXchangeMaker(h, chain, testAccount(), testAccount(), ETH_RAW * 10n);
      // Custody's allowance for the adapter up front (before the broadcaster signs anything), so
      // the executor queues the execute itself and no approval call.
      await chain.approve(custodyTestAccount(), 'USDC', maker.adapter);
    });
    after(async () => {
      await h?.close();
      await database?.drop();
      await chain?.stop();
    });

    /** A taker with 5000 USDC (ledger and custody), an RFQ quoted by the xchange maker, accepted: the executor queues the execute. */
    async function acceptedSwap() {
      const { taker, rfqId, quoteId, settlementDeadline } = await acceptedXchangeQuote(maker, 15_000);
      const [queued] = await waitFor('execute queued', () => executionOf(quoteId), (rows) => rows.length === 1);
      assert.equal(queued!.status, 'QUEUED');
      assert.equal(queued!.not_after_secs, settlementDeadline, 'the call carries the swap expiration');
      return { taker, rfqId, quoteId, settlementDeadline, transferId: queued!.id };
    }

    /** Until the wall clock and the chain's latest block are both past `deadline`. */
    async function pastDeadline(deadline: number): Promise<void> {
      await waitFor('deadline passed', async () => {
        const latest = await rpc<{ timestamp: string }>(chain, 'eth_getBlockByNumber', ['latest', false]);
        return Math.min(Number(latest.timestamp), Math.floor(Date.now() / 1000));
      }, (secs) => secs > deadline);
    }

    /** The RFQ ends FAILED on chain time and the taker's 5000 USDC are free again. */
    async function failedAndReleased(swap: Awaited<ReturnType<typeof acceptedSwap>>): Promise<void> {
      const rfq = await waitFor('RFQ failed', () => swap.taker.client.getRfq(swap.rfqId), (r) => r.status !== 'QUOTED');
      assert.equal(rfq.status, 'FAILED', JSON.stringify(rfq));
      assert.deepEqual(await balanceOf(swap.taker.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '5000', locked: '0', total: '5000' });
    }

    it('a queued execute whose deadline passed is never signed: EXPIRED, custody nonce untouched, the RFQ fails and releases the taker', async () => {
      const swap = await acceptedSwap();
      const nonceBefore = await nonceCount();
      await pastDeadline(swap.settlementDeadline);

      await broadcaster().tick();
      const [row] = await executionOf(swap.quoteId);
      assert.equal(row!.status, 'EXPIRED');
      assert.equal(row!.raw_tx, null);
      assert.match(row!.last_error ?? '', /deadline/);
      assert.deepEqual(await attemptsOf(swap.transferId), [], 'nothing signed');
      assert.equal(await nonceCount(), nonceBefore, 'custody sent nothing');
      await failedAndReleased(swap);
      // A pass of the node's executor begun after the RFQ failed has ended: it would have queued it.
      await h.node.afterPass('xchange-executor');
      assert.equal((await executionOf(swap.quoteId)).length, 1, 'the executor queues nothing after the deadline');
      const execution = await h.node.store.db.selectFrom('xchange_executions').select('last_error').where('quote_id', '=', swap.quoteId).executeTakeFirstOrThrow();
      assert.match(execution.last_error ?? '', /not signed/);
    });

    it('a swap whose lock does not cover it is quarantined (xchange handler), and the next deposit is still credited', async () => {
      const swap = await acceptedSwap();
      // A ledger defect: the taker's RFQ lock no longer matches the selected quote.
      await h.node.store.db.updateTable('locks').set((eb) => ({ amount: eb('amount', '+', 1n) })).where('owner_kind', '=', 'rfq').where('owner_id', '=', swap.rfqId).where('released_at', 'is', null).execute();
      const running = broadcaster();
      await waitFor('execute confirmed', async () => {
        await running.tick();
        return (await executionOf(swap.quoteId))[0]!.status;
      }, (status) => status === 'CONFIRMED');
      const [row] = await executionOf(swap.quoteId);
      const anomaly = await waitFor('quarantined', () => h.node.store.db.selectFrom('settlement_anomalies').selectAll().where('tx_hash', '=', row!.tx_hash!.toLowerCase()).executeTakeFirst(), (a) => a !== undefined);
      assert.equal(anomaly!.kind, 'HANDLER_FAILED');
      assert.equal((anomaly!.detail as { handler: string }).handler, 'xchange-settled');
      assert.match((anomaly!.detail as { error: string }).error, /does not cover settlement/);
      // The follower moved on: a later deposit is credited.
      const depositor = testAccount();
      await chain.fundGas(depositor.address);
      const client = new RfqClient(h.url);
      await client.signIn(depositor);
      await chain.mint('USDC', depositor.address, parseUnits('4', 6));
      await chain.transfer(depositor, 'USDC', chain.custody, parseUnits('4', 6));
      await waitFor('credited after the quarantined swap', () => balanceOf(client, 'USDC'), (b) => b?.total === '4');
    });

    it('an execute stuck past its deadline is not fee-bumped: a zero-value cancel frees its nonce', async () => {
      const swap = await acceptedSwap();
      const waiting = broadcaster();
      // Signed and sent in time, then left unminable by a base fee spike.
      await rpc(chain, 'evm_setIntervalMining', [0]);
      await rpc(chain, 'evm_setAutomine', [false]);
      try {
        assert.equal(await waiting.signQueued(), 1);
        assert.equal(await waiting.sendSigned(), 1);
        await rpc(chain, 'anvil_setNextBlockBaseFeePerGas', [`0x${parseGwei('100').toString(16)}`]);
        await rpc(chain, 'evm_mine');
      } finally {
        await rpc(chain, 'evm_setAutomine', [true]);
        await rpc(chain, 'evm_setIntervalMining', [1]);
      }
      const [original] = await attemptsOf(swap.transferId);
      await pastDeadline(swap.settlementDeadline);
      assert.equal(await rpc(chain, 'eth_getTransactionReceipt', [original!.tx_hash]), null, 'the execute is stuck');

      const running = broadcaster({ maxFeePerGasWei: parseGwei('1000') });
      await waitFor('cancel mined', async () => {
        await running.tick();
        return (await executionOf(swap.quoteId))[0]!.status;
      }, (status) => status !== 'SIGNED' && status !== 'SENT');
      assert.equal((await executionOf(swap.quoteId))[0]!.status, 'CANCELLED');
      assert.deepEqual((await attemptsOf(swap.transferId)).map((a) => a.kind), ['original', 'cancel'], 'never a second execute');
      assert.equal(await rpc(chain, 'eth_getTransactionReceipt', [original!.tx_hash]), null, 'the execute can never be mined now');
      await failedAndReleased(swap);
    });
  });
}
