/**
 * Perp instruments, RFQs and maker quotes over HTTP against the venue simulator (DESIGN.md
 * 9.1-9.2): operator refusals, perp RFQ refusals, each maker-order defect refused at quote time
 * with PERP_ORDER_INVALID, `builderFeeTenthBp` on the taker's view, and a (signer, nonce) used
 * once across quotes.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { signL1Action } from '@nktkas/hyperliquid/signing';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startVenueSim, type VenueSim } from '../../../sim/venue/index.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { lockForPerpCommit } from '../../../src/store/perp-commit-functions.ts';
import { inTransaction } from '../../../src/store/outbox.ts';

const BUILDER = '0x00000000000000000000000000000000000000b1';
const ETH_INDEX = 1; // the simulator's default universe: BTC, ETH, SOL

type Signed = { action: Record<string, unknown>; nonce: number; signature: { r: string; s: string; v: number } };

let lastNonce = 0;
/** Unix ms, strictly increasing within the run (a signer's nonces must differ). */
function freshNonce(): number {
  lastNonce = Math.max(Date.now(), lastNonce + 1);
  return lastNonce;
}

async function signed(account: PrivateKeyAccount, action: Record<string, unknown>, nonce = freshNonce()): Promise<Signed> {
  const signature = await signL1Action({ wallet: account, action, nonce, isTestnet: false });
  return { action, nonce, signature };
}

function cloid(): string {
  return `0x${randomBytes(16).toString('hex')}`;
}

/** The maker's ALO order and its cancel for a quote on an RFQ BUY of `s` ETH at price `p`. */
async function makerPair(
  account: PrivateKeyAccount,
  s: string,
  p: string,
  options: { order?: Record<string, unknown>; action?: Record<string, unknown>; cancel?: Record<string, unknown>; nonce?: number; cancelNonce?: number; b?: boolean } = {},
) {
  const c = cloid();
  const action = {
    type: 'order',
    orders: [{ a: ETH_INDEX, b: options.b ?? false, p, s, r: false, t: { limit: { tif: 'Alo' } }, c, ...options.order }],
    grouping: 'na',
    ...options.action,
  };
  const order = await signed(account, action, options.nonce);
  const cancelled = (options.order?.c as string | undefined) ?? c;
  const cancel = await signed(account, { type: 'cancelByCloid', cancels: [{ asset: ETH_INDEX, cloid: cancelled, ...options.cancel }] }, options.cancelNonce ?? Math.max(order.nonce + 1, freshNonce()));
  return { perpMakerOrder: order, perpMakerCancel: cancel };
}

for (const backend of backends()) {
  describe(`perp instruments, RFQs and quotes [${backend}]`, () => {
    let sim: VenueSim;
    let h: Harness;
    let maker: { client: RfqClient; account: PrivateKeyAccount };
    let spotMaker: { client: RfqClient };
    let taker: { client: RfqClient };

    async function perpMaker() {
      const account = privateKeyToAccount(generatePrivateKey());
      await h.admin.putMaker(account.address, { active: true, pairs: ['ETH-USDC', 'BTC-USDC'], settlementModes: ['perp'] });
      const client = new RfqClient(h.url);
      await client.signIn(account);
      return { client, account };
    }

    async function buyRfq(baseQty = '0.5', quoteLimit = '2000', instrumentId = 'ETH-USDC-PERP') {
      return taker.client.createRfq({ instrumentId, side: 'BUY', baseQty, quoteLimit, windowMs: 60_000 });
    }

    function buyQuote(rfqId: string, extra: Record<string, unknown>, base = '0.5', usdc = '1500.5') {
      return { rfqId, instrumentId: 'ETH-USDC-PERP', side: 'BUY' as const, makerPays: { token: 'ETH', amount: base }, makerReceives: { token: 'USDC', amount: usdc }, ...extra };
    }

    before(async () => {
      sim = await startVenueSim({ port: 0 });
      h = await startHarness(backend, { venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER } });
      await h.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
      await h.admin.putInstrument('BTC-USDC-PERP', { base: 'BTC', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 0, minQuoteNotional: '10' });
      maker = await perpMaker();
      spotMaker = await h.newMaker();
      taker = await h.newUser();
    });
    after(async () => {
      await h?.close();
      await sim?.stop();
    });

    it('the operator registers PERP instruments only on venue coins, quoted in USDC, fee 0..100, minimum notional >= 10', async () => {
      const perp = (base: string, extra: Record<string, unknown> = {}) => ({ base, quote: 'USDC', type: 'PERP' as const, takerFeeTenthBp: 10, minQuoteNotional: '10', ...extra });
      await rejects(h.admin.putInstrument('DOGE-USDC-PERP', perp('DOGE')), 400, 'VENUE_COIN_NOT_FOUND');
      await rejects(h.admin.putInstrument('eth-USDC-PERP', perp('eth')), 400, 'INVALID_REQUEST');
      const quote = await rejects(h.admin.putInstrument('SOL-ETH-PERP', perp('SOL', { quote: 'ETH' })), 400, 'INVALID_REQUEST');
      assert.equal((quote.details?.errors as Array<{ field: string }>)[0]!.field, 'quote');
      const fee = await rejects(h.admin.putInstrument('SOL-USDC-PERP', perp('SOL', { takerFeeTenthBp: 101 })), 400, 'INVALID_REQUEST');
      assert.equal((fee.details?.errors as Array<{ field: string }>)[0]!.field, 'takerFeeTenthBp');
      const min = await rejects(h.admin.putInstrument('SOL-USDC-PERP', perp('SOL', { minQuoteNotional: '9.99' })), 400, 'INVALID_REQUEST');
      assert.equal((min.details?.errors as Array<{ field: string }>)[0]!.field, 'minQuoteNotional');
      await rejects(h.admin.putInstrument('SOL-USDC-PERP', perp('SOL', { minQuoteNotional: null })), 400, 'INVALID_REQUEST');
      const instruments = (await taker.client.instruments()).instruments.map((i) => i.instrumentId);
      assert.ok(!instruments.includes('SOL-USDC-PERP') && !instruments.includes('DOGE-USDC-PERP'), 'nothing refused was written');
      const eth = (await taker.client.instruments()).instruments.find((i) => i.instrumentId === 'ETH-USDC-PERP')!;
      assert.deepEqual(eth, { instrumentId: 'ETH-USDC-PERP', base: 'ETH', quote: 'USDC', type: 'PERP', instrumentType: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
    });

    it('a node without a venue cannot register a perp', async () => {
      const bare = await startHarness(backend, { seed: true });
      try {
        await rejects(bare.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 10, minQuoteNotional: '10' }), 503, 'NOT_AVAILABLE');
      } finally {
        await bare.close();
      }
    });

    it('refuses bad perp RFQs with stable codes; an unfunded taker may submit (no lock, no balance check)', async () => {
      const base = { instrumentId: 'ETH-USDC-PERP', side: 'BUY' as const, baseQty: '0.5', quoteLimit: '2000' };
      await rejects(taker.client.createRfq({ ...base, autoAccept: true }), 400, 'PERP_AUTO_ACCEPT_UNSUPPORTED');
      const noLimit = await rejects(taker.client.signed('POST', '/v1/rfq/requests', { body: { instrumentId: base.instrumentId, side: 'SELL', baseQty: '0.5' } }), 400, 'INVALID_REQUEST');
      assert.deepEqual((noLimit.details?.errors as Array<{ field: string; reason: string }>).map((e) => [e.field, e.reason]), [['quoteLimit', 'required']]);
      for (const side of ['BUY', 'SELL'] as const) {
        const below = await rejects(taker.client.createRfq({ ...base, side, quoteLimit: '9.99' }), 400, 'BELOW_MIN_NOTIONAL');
        assert.equal(below.details?.minQuoteNotional, '10');
      }
      const fine = await rejects(taker.client.createRfq({ ...base, baseQty: '0.00001' }), 400, 'AMOUNT_OVER_PRECISE');
      assert.equal(fine.details?.maxDecimals, 4, "ETH's size grid");
      const finer = await rejects(taker.client.createRfq({ ...base, baseQty: '0.000000001' }), 400, 'AMOUNT_OVER_PRECISE');
      assert.equal(finer.details?.maxDecimals, 4);
      const sell = await taker.client.createRfq({ ...base, side: 'SELL', quoteLimit: '10', windowMs: 60_000 });
      assert.equal(sell.status, 'PENDING');
      assert.deepEqual((await taker.client.balances()).balances.filter((b) => b.locked !== '0'), [], 'nothing locked');
      // No SELL carve-out: the maker quotes on the full baseQty.
      const open = (await maker.client.openRfqs()).items.find((r) => r.id === sell.rfqId);
      assert.equal(open?.baseQty, '0.5');
    });

    it('takes fill SWEEP on a perp with minFillQty on the coin size grid, refuses a finer one, and shows makers the sweep', async () => {
      const before = (await taker.client.listRfqs()).items.length;
      const refused = await rejects(taker.client.createRfq({ instrumentId: 'ETH-USDC-PERP', side: 'BUY', baseQty: '0.5', quoteLimit: '2000', fill: 'SWEEP', minFillQty: '0.00001' }), 400, 'AMOUNT_OVER_PRECISE');
      assert.equal(refused.details?.field, 'minFillQty');
      assert.equal((await taker.client.listRfqs()).items.length, before, 'the refused RFQ created nothing');
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-PERP', side: 'BUY', baseQty: '0.5', quoteLimit: '2000', fill: 'SWEEP', minFillQty: '0.2', windowMs: 60_000 });
      const open = (await maker.client.openRfqs()).items.find((r) => r.id === rfqId);
      assert.equal(open?.fill, 'SWEEP');
      assert.equal(open?.minFillQty, '0.2');
    });

    it('only makers with the perp mode see perp RFQs', async () => {
      const { rfqId } = await buyRfq();
      assert.ok((await maker.client.openRfqs()).items.some((r) => r.id === rfqId));
      assert.ok(!(await spotMaker.client.openRfqs()).items.some((r) => r.id === rfqId), 'a spot-only maker is not offered a perp RFQ');
      await rejects(spotMaker.client.submitQuote(buyQuote(rfqId, await makerPair(maker.account, '0.5', '3001'))), 403, 'MAKER_NOT_APPROVED');
    });

    it('takes a conforming maker quote, stores its orders as sent, and shows builderFeeTenthBp to the taker', async () => {
      const { rfqId } = await buyRfq();
      const pair = await makerPair(maker.account, '0.5', '3001');
      const { quoteId } = await maker.client.submitQuote(buyQuote(rfqId, pair));
      const [quote] = (await taker.client.rfqQuotes(rfqId)).items;
      assert.equal(quote?.quoteId, quoteId);
      assert.equal(quote?.builderFeeTenthBp, 20);
      assert.equal(quote?.takerTotal, '1500.5', 'takerTotal is makerReceives alone on a perp');
      const stored = await h.node.store.db.selectFrom('perp_quote_orders').selectAll().where('quote_id', '=', quoteId).executeTakeFirstOrThrow();
      assert.equal(stored.maker_order, JSON.stringify(pair.perpMakerOrder), 'the order is stored byte for byte, key order included');
      assert.equal(stored.maker_cancel, JSON.stringify(pair.perpMakerCancel));
      assert.equal(stored.maker_order_signer, maker.account.address.toLowerCase());
      assert.equal(stored.asset_index, ETH_INDEX);

      // A zero-fee perp: no builderFeeTenthBp at all.
      const btc = await buyRfq('0.001', '200', 'BTC-USDC-PERP');
      const c = cloid();
      const order = await signed(maker.account, { type: 'order', orders: [{ a: 0, b: false, p: '100000', s: '0.001', r: false, t: { limit: { tif: 'Alo' } }, c }], grouping: 'na' });
      const cancel = await signed(maker.account, { type: 'cancelByCloid', cancels: [{ asset: 0, cloid: c }] });
      await maker.client.submitQuote({ rfqId: btc.rfqId, instrumentId: 'BTC-USDC-PERP', side: 'BUY', makerPays: { token: 'BTC', amount: '0.001' }, makerReceives: { token: 'USDC', amount: '100' }, perpMakerOrder: order, perpMakerCancel: cancel });
      const [btcQuote] = (await taker.client.rfqQuotes(btc.rfqId)).items;
      assert.ok(btcQuote && !('builderFeeTenthBp' in btcQuote), JSON.stringify(btcQuote));
    });

    it('refuses each defect of the maker order or cancel with PERP_ORDER_INVALID and writes nothing', async () => {
      const { rfqId } = await buyRfq();
      const stranger = privateKeyToAccount(generatePrivateKey());
      const cases: Array<[string, () => Promise<Record<string, unknown>>, string]> = [
        ['shape: keys out of order', () => makerPair(maker.account, '0.5', '3001', { action: {} }).then(async (p) => {
          const o = p.perpMakerOrder.action as Record<string, unknown>;
          return { ...p, perpMakerOrder: await signed(maker.account, { orders: o.orders, type: 'order', grouping: 'na' }) };
        }), 'shape'],
        ['shape: vaultAddress', () => makerPair(maker.account, '0.5', '3001').then((p) => ({ ...p, perpMakerOrder: { ...p.perpMakerOrder, vaultAddress: stranger.address.toLowerCase() } })), 'shape'],
        ['asset', () => makerPair(maker.account, '0.5', '3001', { order: { a: 0 } }), 'asset'],
        ['side', () => makerPair(maker.account, '0.5', '3001', { b: true }), 'side'],
        ['size', () => makerPair(maker.account, '0.4', '3001'), 'size'],
        ['price', () => makerPair(maker.account, '0.5', '3000'), 'price'],
        ['price: trailing zero', () => makerPair(maker.account, '0.5', '3001.0'), 'price'],
        ['tif', () => makerPair(maker.account, '0.5', '3001', { order: { t: { limit: { tif: 'Gtc' } } } }), 'tif'],
        ['cloid', () => makerPair(maker.account, '0.5', '3001', { order: { c: '0xABC' } }), 'cloid'],
        ['signer', () => makerPair(stranger, '0.5', '3001'), 'signer'],
        ['nonce', () => makerPair(maker.account, '0.5', '3001', { nonce: Date.now() - 3 * 86_400_000, cancelNonce: freshNonce() }), 'nonce'],
        ['cancel: another cloid', () => makerPair(maker.account, '0.5', '3001', { cancel: { cloid: cloid() } }), 'cancel'],
        ['cancel: nonce not above the order', () => makerPair(maker.account, '0.5', '3001', { nonce: freshNonce() + 1000, cancelNonce: freshNonce() }), 'cancel'],
      ];
      for (const [name, build, reason] of cases) {
        const error = await rejects(maker.client.submitQuote(buyQuote(rfqId, await build())), 400, 'PERP_ORDER_INVALID');
        const reasons = (error.details?.errors as Array<{ reason: string }>).map((e) => e.reason);
        assert.ok(reasons.includes(reason), `${name}: expected ${reason}, got ${JSON.stringify(error.details)}`);
      }
      const several = await rejects(maker.client.submitQuote(buyQuote(rfqId, await makerPair(maker.account, '0.4', '3000', { order: { a: 2 } }))), 400, 'PERP_ORDER_INVALID');
      assert.deepEqual((several.details?.errors as Array<{ reason: string }>).map((e) => e.reason).sort(), ['asset', 'price', 'size'], 'one entry per defect');
      await rejects(maker.client.submitQuote(buyQuote(rfqId, {})), 400, 'INVALID_REQUEST');
      const pair = await makerPair(maker.account, '0.5', '3001');
      await rejects(maker.client.submitQuote(buyQuote(rfqId, { perpMakerOrder: pair.perpMakerOrder })), 400, 'INVALID_REQUEST');
      assert.equal((await taker.client.rfqQuotes(rfqId)).items.length, 0, 'no quote was written');
    });

    it('refuses perp fields on a spot RFQ', async () => {
      const spotTaker = await h.newUser();
      const { rfqId } = await spotTaker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', windowMs: 60_000 });
      const error = await rejects(
        spotMaker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3000' }, ...(await makerPair(maker.account, '1', '3000')) }),
        400,
        'INVALID_REQUEST',
      );
      assert.equal((error.details?.errors as Array<{ field: string }>)[0]!.field, 'perpMakerOrder');
    });

    it('claims each (signer, nonce) once across quotes; a re-quote carries a new pair', async () => {
      const first = await buyRfq();
      const second = await buyRfq();
      const pair = await makerPair(maker.account, '0.5', '3001');
      const { quoteId } = await maker.client.submitQuote(buyQuote(first.rfqId, pair));
      // The same signed pair on another RFQ, or again on the same one: refused, nothing changes.
      const reused = await rejects(maker.client.submitQuote(buyQuote(second.rfqId, pair)), 400, 'PERP_ORDER_INVALID');
      assert.deepEqual((reused.details?.errors as Array<{ field: string; reason: string }>).map((e) => [e.field, e.reason]), [['perpMakerOrder.nonce', 'nonce']]);
      await rejects(maker.client.submitQuote(buyQuote(first.rfqId, pair)), 400, 'PERP_ORDER_INVALID');
      // A new order nonce but the old cancel's: the cancel is named.
      const newOrder = await makerPair(maker.account, '0.5', '3001', { order: { c: (pair.perpMakerOrder.action.orders as Array<{ c: string }>)[0]!.c } });
      const cancelReused = await rejects(maker.client.submitQuote(buyQuote(second.rfqId, { perpMakerOrder: newOrder.perpMakerOrder, perpMakerCancel: pair.perpMakerCancel })), 400, 'PERP_ORDER_INVALID');
      assert.ok(JSON.stringify(cancelReused.details).includes('perpMakerCancel.nonce') || JSON.stringify(cancelReused.details).includes('"cancel"'), JSON.stringify(cancelReused.details));
      assert.equal((await taker.client.rfqQuotes(second.rfqId)).items.length, 0, 'nothing was written on the second RFQ');
      const [before] = (await taker.client.rfqQuotes(first.rfqId)).items;
      assert.equal(before?.version, 1, 'the refused re-quote changed nothing');
      // A re-quote with a fresh pair re-prices the quote.
      const requote = await maker.client.submitQuote(buyQuote(first.rfqId, await makerPair(maker.account, '0.5', '3000'), '0.5', '1500'));
      assert.equal(requote.quoteId, quoteId);
      assert.equal(requote.version, 2);
      const claims = await h.node.store.db.selectFrom('venue_nonce_claims').select(['purpose']).where('quote_id', '=', quoteId).execute();
      assert.equal(claims.length, 4, 'two pairs claimed for the quote and its re-quote');
      // The accept path claims through the same table (its execution's lock call): a maker's claimed pair is refused there too.
      const db = h.node.store.db;
      const { account_id: accountId } = await db.selectFrom('rfqs').select('account_id').where('id', '=', first.rfqId).executeTakeFirstOrThrow();
      const claim = async (signer: string, nonce: number) =>
        (await inTransaction(db, (tx) => lockForPerpCommit(tx, { rfqId: first.rfqId, accountId, quoteId, now: Date.now(), nonce: { signer, nonce } }))).claimed;
      assert.equal(await claim(maker.account.address, pair.perpMakerOrder.nonce), false);
      const taken = freshNonce();
      assert.equal(await claim(maker.account.address, taken), true);
      assert.equal(await claim(maker.account.address.toLowerCase(), taken), false, 'signers compare lower-cased');
    });
  });
}
