/**
 * The operator reads the console is built on, over HTTP on each store: every account's RFQs with
 * their quotes and makers named (filters, page envelope, one by id), tokens, instruments, every
 * deposit, a maker's failures; and the console's static files with their security headers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { CONSOLE_DIR } from '../../../src/api/admin/console.routes.ts';
import { elapse } from '../../helpers/eventually.ts';

interface AdminQuote { quoteId: string; makerId: string; makerAddress: string; status: string; makerPays: { token: string; amount: string }; makerReceives: { token: string; amount: string }; takerTotal: string; settlementMode: string }
interface AdminRfq { id: string; status: string; instrumentId: string; baseQty: string; takerAddress: string; accountId: string; createdAt: number; selectedQuoteId?: string; quotes: AdminQuote[] }
interface Page<T> { items: T[]; hasMore: boolean; nextCursor?: string | null }

for (const backend of backends()) {
  describe(`admin reads for the console [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());

    const rfqs = (query: Record<string, string | undefined> = {}) => h.admin.call<Page<AdminRfq>>('GET', '/rfqs', undefined, query);

    it("lists every account's RFQs newest first with their quotes, makers named, and filters them", async () => {
      const maker = await h.newMaker();
      const [alice, bob] = [await h.newUser(), await h.newUser()];
      await h.fund(alice.account.address, { USDC: '100000' });
      await h.fund(bob.account.address, { BTC: '1', USDC: '100000' });
      const t0 = Date.now();
      const first = await alice.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 20_000 });
      await elapse(5, 'distinct createdAt, so "newest first" is observable');
      const second = await bob.client.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'SELL', baseQty: '0.1', windowMs: 20_000 });
      await elapse(5, 'distinct createdAt, so "newest first" is observable');
      const third = await alice.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '0.25', windowMs: 20_000 });
      const q1 = await maker.client.submitQuote({ rfqId: first.rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4300.123456' } });
      await alice.client.cancelRfq(third.rfqId);

      const all = await rfqs();
      assert.deepEqual(all.items.map((r) => r.id), [third.rfqId, second.rfqId, first.rfqId]);
      assert.equal(all.hasMore, false);
      const withQuote = all.items[2]!;
      assert.equal(withQuote.takerAddress, alice.account.address);
      assert.equal(withQuote.baseQty, '1.5');
      assert.equal(withQuote.quotes.length, 1);
      const quote = withQuote.quotes[0]!;
      assert.deepEqual(
        { quoteId: quote.quoteId, makerId: quote.makerId, makerAddress: quote.makerAddress, status: quote.status, makerPays: quote.makerPays, makerReceives: quote.makerReceives, mode: quote.settlementMode },
        { quoteId: q1.quoteId, makerId: maker.makerId, makerAddress: maker.account.address, status: 'SUBMITTED', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4300.123456' }, mode: 'permit2' },
      );
      assert.equal(quote.takerTotal, '4310.873764'); // 4300.123456 + the 0.25 % fee (250 tenths of a bp), rounded up: 10.750308
      assert.deepEqual(all.items[1]!.quotes, []);

      assert.deepEqual((await rfqs({ status: 'CANCELLED' })).items.map((r) => r.id), [third.rfqId]);
      assert.deepEqual((await rfqs({ instrumentId: 'BTC-USDC-SPOT' })).items.map((r) => r.id), [second.rfqId]);
      assert.deepEqual((await rfqs({ account: bob.account.address.toLowerCase() })).items.map((r) => r.id), [second.rfqId]);
      assert.deepEqual((await rfqs({ account: alice.account.address, status: 'PENDING' })).items.map((r) => r.id), [first.rfqId]);
      const created = all.items.map((r) => r.createdAt);
      assert.deepEqual((await rfqs({ from: String(created[1]), to: String(created[0]) })).items.map((r) => r.id), [second.rfqId]);
      assert.deepEqual((await rfqs({ from: String(t0 + 3_600_000) })).items, []);

      const page1 = await rfqs({ limit: '2' });
      assert.deepEqual([page1.items.map((r) => r.id), page1.hasMore], [[third.rfqId, second.rfqId], true]);
      const page2 = await rfqs({ limit: '2', cursor: page1.nextCursor! });
      assert.deepEqual([page2.items.map((r) => r.id), page2.hasMore], [[first.rfqId], false]);

      const one = await h.admin.call<AdminRfq>('GET', `/rfqs/${first.rfqId}`);
      assert.deepEqual(one, withQuote);
      await rejects(h.admin.call('GET', '/rfqs/rfq_nope'), 404, 'NOT_FOUND');
      await rejects(h.admin.call('GET', '/rfqs', undefined, { status: 'DONE' }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.call('GET', '/rfqs', undefined, { account: '0x123' }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.call('GET', '/rfqs', undefined, { cursor: 'garbage' }), 400, 'INVALID_REQUEST');
      const anonymous = await fetch(`${h.url}/admin/v1/rfqs`);
      assert.equal(anonymous.status, 401);
      assert.equal(((await anonymous.json()) as { error: { code: string } }).error.code, 'ADMIN_UNAUTHORIZED');
    });

    it('lists tokens and instruments as stored, disabled ones included', async () => {
      await h.admin.putToken('SOL', { decimals: 9 });
      await h.admin.putInstrument('SOL-USDC-SPOT', { base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 120, minQuoteNotional: '5.5', enabled: false });
      const { tokens } = await h.admin.call<{ tokens: Array<{ symbol: string; decimals: number; address: string | null }> }>('GET', '/tokens');
      assert.deepEqual(tokens.map((t) => [t.symbol, t.decimals, t.address]), [['BTC', 8, null], ['ETH', 18, null], ['SOL', 9, null], ['USDC', 6, null]]);
      const { instruments } = await h.admin.call<{ instruments: Array<Record<string, unknown>> }>('GET', '/instruments');
      const sol = instruments.find((i) => i['instrumentId'] === 'SOL-USDC-SPOT')!;
      assert.deepEqual({ ...sol, updatedAt: undefined }, { instrumentId: 'SOL-USDC-SPOT', base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 120, minQuoteNotional: '5.5', enabled: false, updatedAt: undefined });
      assert.deepEqual(instruments.map((i) => i['instrumentId']), ['BTC-USDC-SPOT', 'ETH-USDC-SPOT', 'SOL-USDC-SPOT']);
    });

    it("lists deposits (none without a chain) and a maker's failures and suspension state", async () => {
      assert.deepEqual(await h.admin.call('GET', '/deposits'), { items: [], hasMore: false });
      await rejects(h.admin.call('GET', '/deposits', undefined, { status: 'LOST' }), 400, 'INVALID_REQUEST');
      const maker = await h.newMaker();
      const failures = await h.admin.call<Record<string, unknown>>('GET', `/makers/${maker.account.address}/failures`);
      assert.deepEqual(failures, { makerId: maker.makerId, address: maker.account.address, suspendedUntil: null, suspensionCount: 0, lastSuspendedAt: null, failures: [] });
      await rejects(h.admin.call('GET', `/makers/${privateKeyToAccount(generatePrivateKey()).address}/failures`), 404, 'NOT_FOUND');
    });

    it('serves the console: every file of console/, with a same-origin content security policy, nothing else', async () => {
      for (const path of ['/console', '/console/']) {
        const page = await fetch(`${h.url}${path}`);
        assert.equal(page.status, 200);
        assert.match(page.headers.get('content-type')!, /^text\/html/);
        assert.match(page.headers.get('content-security-policy')!, /default-src 'self'/);
        assert.equal(await page.text(), readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8'));
      }
      const script = await fetch(`${h.url}/console/app.js`);
      assert.match(script.headers.get('content-type')!, /^text\/javascript/);
      assert.equal(await script.text(), readFileSync(join(CONSOLE_DIR, 'app.js'), 'utf8'));
      for (const path of ['/console/nope.js', '/console/..%2Fpackage.json', '/console/%2e%2e%2fpackage.json']) {
        const missing = await fetch(`${h.url}${path}`);
        assert.equal(missing.status, 404, path);
      }
      // No file reaches outside the node: nothing in the console names another origin.
      const { readdirSync } = await import('node:fs');
      for (const name of readdirSync(CONSOLE_DIR)) {
        assert.doesNotMatch(readFileSync(join(CONSOLE_DIR, name), 'utf8'), /(src|href)\s*=\s*["']https?:|import\s[^;]*from\s*["']https?:|url\(\s*["']?https?:/, name);
      }
      const token = await fetch(`${h.url}/admin/v1/settings`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(token.status, 200);
    });
  });
}
