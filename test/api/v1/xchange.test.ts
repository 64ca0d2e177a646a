/**
 * xchange settlement over HTTP on a real devnet: a maker's adapter-signed bundle is checked at
 * quote time (each defect with its precise 400), shows in MakerQuote, and once the taker accepts,
 * custody executes it through the adapter and the chain follower settles the RFQ: ledger and
 * chain balances exact. The execution is sent by the custody broadcaster, so it shares custody's
 * one nonce sequence with withdrawals sent at the same time.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parseUnits, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import type { XchangeBundle } from '../../../src/client/types.ts';
import { connectSigner } from '../../../src/chain/clients.ts';
import { xchangeAdapterAbi } from '../../../src/chain/artifacts/index.ts';
import { swapMessageFromWire, xchangeSwapTypedData } from '../../../src/chain/xchange.ts';
import { waitUntil } from '../../helpers/eventually.ts';

const ETH_QTY = '1.5';
const ETH_RAW = parseUnits(ETH_QTY, 18);
const PRICE = '4500';
const PRICE_RAW = parseUnits(PRICE, 6);

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  return waitUntil(read, done, 'condition', { timeoutMs, pollMs: 100 });
}

const keyOf = (account: PrivateKeyAccount) => (account as PrivateKeyAccount & { __key: Hex }).__key;
const errorsOf = (error: { details?: Record<string, unknown> }) =>
  (error.details?.errors as Array<{ field: string; reason: string }>).map((e) => `${e.field}:${e.reason}`);

for (const backend of backends()) {
  describe(`xchange settlement [${backend}]`, () => {
    let chain: TestChain;
    let h: Harness;
    let adapter: Address;
    let chainId: number;
    const maker = testAccount();
    const adapterSigner = testAccount();
    let makerClient: RfqClient;

    before(async () => {
      chain = await startTestChain();
      h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
      adapter = chain.stack.settings.xchangeAdapterAddress!;
      chainId = h.node.context.chain!.chainId;
      await h.admin.putMaker(maker.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['xchange'], adapterSigner: adapterSigner.address });
      makerClient = new RfqClient(h.url);
      await makerClient.signIn(maker);
      // On-chain, the maker lets its adapter signer move its funds and lets the adapter pull its ETH.
      await chain.fundGas(maker.address);
      const m = await connectSigner(chain.rpcUrl, keyOf(maker));
      const hash = await m.walletClient.writeContract({ address: adapter, abi: xchangeAdapterAbi, functionName: 'setSigner', args: [adapterSigner.address, true] });
      assert.equal((await m.publicClient.waitForTransactionReceipt({ hash })).status, 'success');
      await chain.approve(maker, 'ETH', adapter);
      await chain.mint('ETH', maker.address, ETH_RAW * 10n);
    });
    after(async () => {
      await h?.close();
      await chain?.stop();
    });

    /** A taker funded on the ledger and, for the same amount, in custody on-chain. */
    async function fundedTaker(usdc: string) {
      const taker = await h.newUser();
      await h.fund(taker.account.address, { USDC: usdc });
      await chain.mint('USDC', chain.custody, parseUnits(usdc, 6));
      return taker;
    }

    async function openRfq(taker: { client: RfqClient }) {
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: ETH_QTY, windowMs: 60_000 });
      const rfq = await taker.client.getRfq(rfqId);
      return { rfqId, settlementDeadline: rfq.settlementDeadline };
    }

    async function bundle(opts: { quoteId: string; expiration: number; edit?: (m: XchangeBundle['settlement']['swapMessage']) => void; signer?: PrivateKeyAccount }): Promise<XchangeBundle> {
      const swapMessage = {
        quoteId: opts.quoteId,
        expiration: String(opts.expiration),
        incomingTransfer: { token: chain.token('ETH'), from: maker.address, to: chain.custody, amount: ETH_RAW.toString() },
        outgoingTransfer: { token: chain.token('USDC'), from: chain.custody, to: maker.address, amount: PRICE_RAW.toString() },
      };
      opts.edit?.(swapMessage);
      const typed = xchangeSwapTypedData({ chainId, adapterAddress: adapter, message: swapMessageFromWire(swapMessage) });
      const adapterSignature = await (opts.signer ?? adapterSigner).signTypedData(typed);
      return { adapter: 'RfqXchangeAdapter', settlement: { swapMessage, adapterSignature } };
    }

    const quote = (rfqId: string, xchange: unknown, price = PRICE) =>
      ({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount: ETH_QTY }, makerReceives: { token: 'USDC', amount: price }, xchange }) as Parameters<RfqClient['submitQuote']>[0];

    it('refuses each bundle defect with its precise 400', async () => {
      const taker = await fundedTaker('10000');
      const { rfqId, settlementDeadline } = await openRfq(taker);
      const id = () => `qt_${randomUUID()}`;
      const defect = async (b: XchangeBundle, expected: string[], price?: string) => {
        const error = await rejects(makerClient.submitQuote(quote(rfqId, b, price)), 400, 'XCHANGE_BUNDLE_INVALID');
        assert.deepEqual(errorsOf(error), expected);
      };
      const at = 'xchange.settlement.swapMessage';
      await defect(await bundle({ quoteId: id(), expiration: settlementDeadline, signer: testAccount() }), ['xchange.settlement.adapterSignature:signer']);
      await defect(await bundle({ quoteId: id(), expiration: settlementDeadline, edit: (m) => { m.outgoingTransfer.amount = (PRICE_RAW - 1n).toString(); } }), [`${at}.outgoingTransfer.amount:amount`]);
      await defect(await bundle({ quoteId: id(), expiration: settlementDeadline }), [`${at}.outgoingTransfer.amount:amount`], '4400');
      await defect(await bundle({ quoteId: id(), expiration: settlementDeadline, edit: (m) => { m.incomingTransfer.token = chain.token('BTC'); } }), [`${at}.incomingTransfer.token:token`]);
      const stranger = testAccount().address;
      await defect(await bundle({ quoteId: id(), expiration: settlementDeadline, edit: (m) => { m.incomingTransfer.to = stranger; } }), [`${at}.incomingTransfer.to:custody`]);
      await defect(await bundle({ quoteId: id(), expiration: settlementDeadline, edit: (m) => { m.outgoingTransfer.from = stranger; } }), [`${at}.outgoingTransfer.from:custody`]);
      await defect(await bundle({ quoteId: id(), expiration: settlementDeadline, edit: (m) => { m.outgoingTransfer.to = stranger; } }), [`${at}.outgoingTransfer.to:maker`]);
      await defect(await bundle({ quoteId: 'my-quote-1', expiration: settlementDeadline }), [`${at}.quoteId:quoteId`]);
      await defect(await bundle({ quoteId: id(), expiration: settlementDeadline + 1 }), [`${at}.expiration:expiration`]);
      const wrongAdapter = await bundle({ quoteId: id(), expiration: settlementDeadline });
      await defect({ ...wrongAdapter, adapter: 'Uniswap' }, ['xchange.adapter:unknownAdapter']);
      // A signature over other terms (the bundle edited after signing) recovers someone else.
      const tampered = await bundle({ quoteId: id(), expiration: settlementDeadline });
      tampered.settlement.swapMessage.quoteId = id();
      await defect(tampered, ['xchange.settlement.adapterSignature:signer']);

      // Malformed: the body schema refuses it with field paths.
      const good = await bundle({ quoteId: id(), expiration: settlementDeadline });
      const malformed = [
        { ...good, settlement: { ...good.settlement, adapterSignature: '0x1234' } },
        { ...good, settlement: { ...good.settlement, swapMessage: { ...good.settlement.swapMessage, expiration: '-1' } } },
        { adapter: 'RfqXchangeAdapter' },
      ];
      for (const m of malformed) {
        const error = await rejects(makerClient.submitQuote(quote(rfqId, m)), 400, 'INVALID_REQUEST');
        assert.ok(errorsOf(error).some((e) => e.startsWith('xchange')), errorsOf(error).join());
      }
      assert.equal((await makerClient.makerQuotes()).items.filter((q) => q.rfqId === rfqId).length, 0, 'nothing was written');

      // The maker's id is kept by re-quotes: a re-quote naming another id is refused.
      const firstId = id();
      await makerClient.submitQuote(quote(rfqId, await bundle({ quoteId: firstId, expiration: settlementDeadline })));
      const other = await rejects(makerClient.submitQuote(quote(rfqId, await bundle({ quoteId: id(), expiration: settlementDeadline }))), 400, 'XCHANGE_BUNDLE_INVALID');
      assert.deepEqual(errorsOf(other), [`${at}.quoteId:quoteId`]);

      // An id another quote already has is refused (a second xchange maker on another RFQ).
      const rival = testAccount();
      const rivalSigner = testAccount();
      await h.admin.putMaker(rival.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['xchange'], adapterSigner: rivalSigner.address });
      const rivalClient = new RfqClient(h.url);
      await rivalClient.signIn(rival);
      const second = await openRfq(taker);
      const stolen = await bundle({ quoteId: firstId, expiration: second.settlementDeadline, signer: rivalSigner, edit: (m) => {
        m.incomingTransfer.from = rival.address;
        m.outgoingTransfer.to = rival.address;
      } });
      const taken = await rejects(rivalClient.submitQuote(quote(second.rfqId, stolen)), 400, 'XCHANGE_BUNDLE_INVALID');
      assert.deepEqual(errorsOf(taken), [`${at}.quoteId:quoteIdTaken`]);
    });

    it('a valid bundle is accepted and shown in MakerQuote; a non-xchange quote needs an inventory mode', async () => {
      const taker = await fundedTaker('10000');
      const { rfqId, settlementDeadline } = await openRfq(taker);
      const quoteId = `qt_${randomUUID()}`;
      const b = await bundle({ quoteId, expiration: settlementDeadline });
      const accepted = await makerClient.submitQuote(quote(rfqId, b));
      assert.deepEqual(accepted, { status: 'SUBMITTED', quoteId, version: 1 });
      const mine = (await makerClient.makerQuotes()).items.find((q) => q.quoteId === quoteId)!;
      assert.equal(mine.settlementMode, 'xchange');
      assert.deepEqual(mine.xchange, b);
      // A re-quote with the same id re-prices in place.
      const cheaper = await bundle({ quoteId, expiration: settlementDeadline, edit: (m) => { m.outgoingTransfer.amount = parseUnits('4490', 6).toString(); } });
      assert.deepEqual(await makerClient.submitQuote(quote(rfqId, cheaper, '4490')), { status: 'SUBMITTED', quoteId, version: 2 });
      // This maker offers only xchange: a quote without a bundle has no mode to settle in.
      await rejects(makerClient.submitQuote(quote(rfqId, null)), 403, 'MAKER_NOT_APPROVED');
      // The taker's view of the quote carries no bundle.
      const seen = await taker.client.getQuote(quoteId);
      assert.equal((seen as unknown as Record<string, unknown>)['xchange'], undefined);
    });

    it('a leg of a sweep settles by xchange on its own; its bundle fixes the amounts, so it is never cut', async () => {
      const taker = await fundedTaker('5000');
      // 3 ETH asked, at least 1.5: the xchange quote is one leg of 1.5.
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '3', fill: 'SWEEP', minFillQty: ETH_QTY, windowMs: 60_000 });
      const { settlementDeadline } = await taker.client.getRfq(rfqId);
      const quoteId = `qt_${randomUUID()}`;
      const b = await bundle({ quoteId, expiration: settlementDeadline });
      const cuttable = await rejects(makerClient.submitQuote({ ...quote(rfqId, b), allOrNone: false }), 400, 'INVALID_REQUEST');
      assert.deepEqual((cuttable.details?.errors as Array<{ field: string; reason: string }>).map((e) => `${e.field}:${e.reason}`), ['allOrNone:notAllowed']);
      await makerClient.submitQuote(quote(rfqId, b));
      assert.deepEqual((await taker.client.acceptSweep(rfqId, { sweep: true })).quoteIds, [quoteId]);
      const settled = await until(() => taker.client.getRfq(rfqId), (r) => r.status !== 'QUOTED');
      assert.equal(settled.status, 'SETTLED', JSON.stringify(settled));
      assert.deepEqual([settled.executedPayAmount, settled.executedRecvAmount, settled.takerFee], ['4511.25', ETH_QTY, '11.25']);
      assert.deepEqual(settled.fills!.map((f) => [f.quoteId, f.baseQty, f.status]), [[quoteId, ETH_QTY, 'SETTLED']]);
      assert.match(settled.fills![0]!.txHash!, /^0x[0-9a-f]{64}$/);
      const usdc = (await taker.client.balances()).balances.find((x) => x.token === 'USDC' && x.rail === 'EVM')!;
      assert.deepEqual([usdc.available, usdc.locked], ['488.75', '0']);
      assert.deepEqual((await h.admin.invariants()).violations, []);
    });

    it('accept -> custody executes the bundle -> SETTLED, ledger and chain exact', async () => {
      const taker = await fundedTaker('5000');
      const { rfqId, settlementDeadline } = await openRfq(taker);
      const quoteId = `qt_${randomUUID()}`;
      await makerClient.submitQuote(quote(rfqId, await bundle({ quoteId, expiration: settlementDeadline })));
      const before = {
        makerUsdc: await chain.balanceOf('USDC', maker.address),
        makerEth: await chain.balanceOf('ETH', maker.address),
        custodyUsdc: await chain.balanceOf('USDC', chain.custody),
        custodyEth: await chain.balanceOf('ETH', chain.custody),
      };
      await taker.client.accept(rfqId, { quoteId });
      const settled = await until(() => taker.client.getRfq(rfqId), (r) => r.status !== 'QUOTED');
      assert.equal(settled.status, 'SETTLED', JSON.stringify(settled));
      // Fee 250 tenth-bp (0.25 %) of 4500 USDC = 11.25 USDC.
      assert.equal(settled.takerFee, '11.25');
      assert.equal(settled.executedPayAmount, '4511.25');
      assert.equal(settled.executedRecvAmount, ETH_QTY);
      assert.match(settled.txHash!, /^0x[0-9a-f]{64}$/);

      const mine = (await makerClient.makerQuotes()).items.find((q) => q.quoteId === quoteId)!;
      assert.equal(mine.status, 'SETTLED');
      assert.equal(mine.txHash, settled.txHash);

      const balances = (await taker.client.balances()).balances;
      const of = (token: string) => balances.find((b) => b.token === token && b.rail === 'EVM') ?? { available: '0', locked: '0' };
      assert.deepEqual([of('USDC').available, of('USDC').locked], ['488.75', '0']);
      assert.deepEqual([of('ETH').available, of('ETH').locked], [ETH_QTY, '0']);
      const ledger = (await taker.client.ledger()).entries.map((e) => `${e.source}:${e.token}:${e.delta}`).sort();
      assert.deepEqual(ledger, ['ADJUSTMENT:USDC:5000', 'FEE:USDC:-11.25', 'SETTLEMENT:ETH:1.5', 'SETTLEMENT:USDC:-4500'].sort());

      assert.equal((await chain.balanceOf('USDC', maker.address)) - before.makerUsdc, PRICE_RAW);
      assert.equal(before.makerEth - (await chain.balanceOf('ETH', maker.address)), ETH_RAW);
      assert.equal(before.custodyUsdc - (await chain.balanceOf('USDC', chain.custody)), PRICE_RAW);
      assert.equal((await chain.balanceOf('ETH', chain.custody)) - before.custodyEth, ETH_RAW);
      const invariants = await h.admin.invariants();
      assert.deepEqual(invariants.violations, []);
    });

    it('an xchange execution and withdrawals sent around the same time all confirm, on consecutive custody nonces', async () => {
      const withdrawer = await fundedTaker('300');
      const withdraw = async (amount: string) => {
        const { withdrawalId } = await withdrawer.client.signed<{ withdrawalId: string }>('POST', '/v1/rfq/withdrawals', { body: { token: 'USDC', amount } });
        return withdrawalId;
      };
      const approve = (id: string) => h.admin.call('POST', `/withdrawals/${id}/approve`);
      const withdrawalStatus = async (id: string) => (await withdrawer.client.signed<{ status: string }>('GET', `/v1/rfq/withdrawals/${id}`)).status;
      // A first withdrawal makes the broadcaster's persisted nonce the one in use.
      const first = await withdraw('100');
      await approve(first);
      assert.equal(await until(() => withdrawalStatus(first), (s) => s === 'COMPLETED' || s === 'FAILED' || s === 'UNRESOLVED'), 'COMPLETED');

      const taker = await fundedTaker('5000');
      const { rfqId, settlementDeadline } = await openRfq(taker);
      const quoteId = `qt_${randomUUID()}`;
      await makerClient.submitQuote(quote(rfqId, await bundle({ quoteId, expiration: settlementDeadline })));
      const second = await withdraw('150');
      const withdrawerBefore = await chain.balanceOf('USDC', withdrawer.account.address);
      await Promise.all([taker.client.accept(rfqId, { quoteId }), approve(second)]);

      const settled = await until(() => taker.client.getRfq(rfqId), (r) => r.status !== 'QUOTED');
      assert.equal(settled.status, 'SETTLED', JSON.stringify(settled));
      assert.equal(await until(() => withdrawalStatus(second), (s) => s === 'COMPLETED' || s === 'FAILED' || s === 'UNRESOLVED'), 'COMPLETED');
      assert.equal((await chain.balanceOf('USDC', withdrawer.account.address)) - withdrawerBefore, parseUnits('150', 6));

      // The RFQ settles from the chain's `XchangeSettled` event; the broadcaster ends the execution's
      // transfer on its own pass (at confirmation depth), which can come a moment later.
      const rows = await until(
        () => h.node.store.db
          .selectFrom('custody_transfers')
          .select(['purpose', 'owner_id', 'status', 'nonce', 'tx_hash'])
          .where('owner_id', 'in', [first, second, quoteId])
          .orderBy('nonce')
          .execute(),
        (found) => found.length === 3 && found.every((r) => !['QUEUED', 'SIGNED', 'SENT'].includes(r.status)),
      );
      assert.deepEqual(rows.map((r) => [r.purpose, r.owner_id, r.status]).sort(), [['withdrawal', first, 'CONFIRMED'], ['withdrawal', second, 'CONFIRMED'], ['xchange', quoteId, 'CONFIRMED']].sort());
      const execution = rows.find((r) => r.purpose === 'xchange')!;
      assert.equal(execution.tx_hash, settled.txHash, 'the RFQ settled from the broadcaster-sent execution');
      // The second withdrawal and the execution were signed after the first: the next two nonces.
      const nonces = rows.map((r) => r.nonce!);
      assert.equal(nonces[0], rows.find((r) => r.owner_id === first)!.nonce);
      assert.deepEqual(nonces, [nonces[0]!, nonces[0]! + 1, nonces[0]! + 2]);
      // Custody's sequence is the broadcaster's alone: the node has mined exactly up to it.
      const nodeCount = await h.node.context.chain!.custody.publicClient.getTransactionCount({ address: chain.custody });
      const stored = await h.node.store.db.selectFrom('custody_nonces').select('next_nonce').where('address', '=', h.node.context.chain!.custodyAddress).executeTakeFirstOrThrow();
      assert.equal(stored.next_nonce, nodeCount);
      const invariants = await h.admin.invariants();
      assert.deepEqual(invariants.violations, []);
    });
  });
}
