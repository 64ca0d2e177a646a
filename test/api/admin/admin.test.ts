/**
 * The operator surface `/admin/v1` (DESIGN.md section 6), black-box over HTTP: the bearer token,
 * reference data, makers, balance adjustments as users then see them, settings and invariants.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../../helpers/harness.ts';
import { AdminClient } from '../../../src/client/admin-client.ts';
import { ApiError } from '../../../src/client/http.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { rejects } from '../../helpers/rejects.ts';
import { elapse } from '../../helpers/eventually.ts';

function fieldsOf(error: ApiError): string[] {
  return ((error.details?.errors ?? []) as Array<{ field: string }>).map((e) => e.field);
}

const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;

for (const backend of backends()) {
  describe(`admin [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());

    it('requires the operator bearer token', async () => {
      for (const [method, path] of [['GET', '/admin/v1/makers'], ['GET', '/admin/v1/settings'], ['GET', '/admin/v1/invariants'], ['PUT', '/admin/v1/tokens/XYZ']] as const) {
        const body = method === 'PUT' ? JSON.stringify({ decimals: 6 }) : undefined;
        const headers = body ? { 'content-type': 'application/json' } : {};
        for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${ADMIN_TOKEN.slice(0, -1)}x`, `Basic ${ADMIN_TOKEN}`, ADMIN_TOKEN]) {
          await elapse(300, 'under the per-source limit on failed operator authentication (5 per second)');
          const response = await fetch(`${h.url}${path}`, { method, headers: { ...headers, ...(authorization ? { authorization } : {}) }, ...(body ? { body } : {}) });
          assert.equal(response.status, 401, `${method} ${path} with ${authorization ?? 'no authorization'}`);
          const envelope = (await response.json()) as { error: { code: string; message: string } };
          assert.equal(envelope.error.code, 'ADMIN_UNAUTHORIZED');
          // Where the token is found, RFQ_DATA_DIR included (a reader with a moved data directory).
          assert.match(envelope.error.message, /RFQ_ADMIN_TOKEN.*admin-token.*RFQ_DATA_DIR/);
        }
      }
      await elapse(1000, 'a fresh window of the failed-authentication limit');
      await rejects(new AdminClient(h.url, 'not-the-token').listMakers(), 401, 'ADMIN_UNAUTHORIZED');
      // Nothing was written by the refused PUT.
      const { client } = await h.newUser();
      await rejects(h.admin.putInstrument('XYZ-USDC-SPOT', { base: 'XYZ', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 1 }), 400, 'TOKEN_NOT_FOUND');
      // A user's HMAC credential is not an operator token either.
      const asUser = await fetch(`${h.url}/admin/v1/makers`, { headers: { authorization: `Bearer ${client.credentials!.accessKey}` } });
      assert.equal(asUser.status, 401);
    });

    it('PUT token creates and updates, but refuses a change of decimals', async () => {
      const created = await h.admin.putToken('WBTC', { decimals: 8 });
      assert.deepEqual(created, { symbol: 'WBTC', decimals: 8, address: null });
      const address = '0x' + 'ab'.repeat(20);
      const updated = await h.admin.putToken('WBTC', { decimals: 8, address });
      assert.equal(updated.address, address);
      const conflict = await rejects(h.admin.putToken('WBTC', { decimals: 18 }), 409, 'CONFLICT');
      assert.match(conflict.message, /decimals/);
      // Still 8 decimals: an amount with 9 places is over-precise, with 8 it is fine.
      const who = newAddress();
      await rejects(h.admin.adjustBalance({ address: who, token: 'WBTC', amount: '0.000000001', memo: 'm' }), 400, 'AMOUNT_OVER_PRECISE');
      const ok = await h.admin.adjustBalance({ address: who, token: 'WBTC', amount: '0.00000001', memo: 'm' });
      assert.equal(ok.balance.available, '0.00000001');
      await rejects(h.admin.putToken('lower', { decimals: 6 }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.putToken('BIG', { decimals: 37 }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.putToken('BADADDR', { decimals: 6, address: '0x1234' }), 400, 'INVALID_REQUEST');
    });

    it('PUT instrument validates tokens and id, and users see type, minQuoteNotional and takerFeeTenthBp', async () => {
      await h.admin.putToken('SOL', { decimals: 9 });
      const unknownBase = await rejects(h.admin.putInstrument('DOGE-USDC-SPOT', { base: 'DOGE', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 10 }), 400, 'TOKEN_NOT_FOUND');
      assert.match(unknownBase.message, /DOGE/);
      const unknownQuote = await rejects(h.admin.putInstrument('SOL-EUR-SPOT', { base: 'SOL', quote: 'EUR', type: 'SPOT', takerFeeTenthBp: 10 }), 400, 'TOKEN_NOT_FOUND');
      assert.match(unknownQuote.message, /EUR/);
      const mismatch = await rejects(h.admin.putInstrument('SOL-USDC-SPOT', { base: 'SOL', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 10 }), 400, 'INVALID_REQUEST');
      assert.deepEqual(fieldsOf(mismatch), ['instrumentId']);
      await rejects(h.admin.putInstrument('ETH-SOL-SPOT', { base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 10 }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.putInstrument('sol-usdc-spot', { base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 10 }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.putInstrument('SOL-USDC-SPOT', { base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 10, minQuoteNotional: '1.0000001' }), 400, 'AMOUNT_OVER_PRECISE');
      await rejects(h.admin.putInstrument('SOL-USDC-SPOT', { base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: -1 }), 400, 'INVALID_REQUEST');

      const spot = await h.admin.putInstrument('SOL-USDC-SPOT', { base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 150, minQuoteNotional: '25.5' });
      assert.deepEqual(spot, { instrumentId: 'SOL-USDC-SPOT', base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 150, minQuoteNotional: '25.5', enabled: true });
      // A perp is checked against the venue's meta (test/api/v1/perp-quotes.test.ts); this node has no venue.
      await rejects(h.admin.putInstrument('SOL-USDC-PERP', { base: 'SOL', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 40, minQuoteNotional: '10' }), 503, 'NOT_AVAILABLE');
      await h.admin.putInstrument('SOL-BTC-SPOT', { base: 'SOL', quote: 'BTC', type: 'SPOT', takerFeeTenthBp: 40, enabled: false });

      const { client } = await h.newUser();
      const { instruments } = await client.instruments();
      const byId = new Map(instruments.map((i) => [i.instrumentId, i as unknown as Record<string, unknown>]));
      assert.deepEqual(byId.get('SOL-USDC-SPOT'), { instrumentId: 'SOL-USDC-SPOT', base: 'SOL', quote: 'USDC', type: 'SPOT', instrumentType: 'SPOT', takerFeeTenthBp: 150, minQuoteNotional: '25.5' });
      assert.ok(!byId.has('SOL-USDC-PERP'), 'the refused perp was not written');
      assert.equal(byId.get('ETH-USDC-SPOT')?.minQuoteNotional, '10', 'the seeded instrument');
      assert.ok(!byId.has('SOL-BTC-SPOT'), 'a disabled instrument is not listed');

      // Update: fee and minimum change, the listing follows at once.
      await h.admin.putInstrument('SOL-USDC-SPOT', { base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 99 });
      const again = (await client.instruments()).instruments.find((i) => i.instrumentId === 'SOL-USDC-SPOT') as unknown as Record<string, unknown>;
      assert.equal(again.takerFeeTenthBp, 99);
      assert.ok(!('minQuoteNotional' in again), 'no minimum once cleared');
      await h.admin.putInstrument('SOL-USDC-SPOT', { base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 99, enabled: false });
      assert.ok(!(await client.instruments()).instruments.some((i) => i.instrumentId === 'SOL-USDC-SPOT'), 'disabling hides it');
    });

    it('PUT maker registers (returning makerId), updates in place, and GET makers lists it', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const created = await h.admin.putMaker(account.address.toLowerCase(), { active: true, pairs: ['ETH-USDC', 'BTC-USDC', 'ETH-USDC'], settlementModes: ['permit2', 'promised'] });
      assert.match(created.makerId, /^[0-9a-f-]{36}$/);
      assert.equal(created.address, account.address, 'stored checksummed');
      assert.deepEqual(created.pairs, ['ETH-USDC', 'BTC-USDC'], 'duplicates dropped');
      assert.deepEqual(created.settlementModes, ['permit2', 'promised']);
      assert.equal(created.active, true);
      assert.equal(created.spender, null);

      const spender = newAddress();
      const updated = await h.admin.putMaker(account.address, { active: false, pairs: ['ETH-USDC'], settlementModes: ['permit2'], spender });
      assert.equal(updated.makerId, created.makerId, 'same maker, updated');
      assert.equal(updated.active, false);
      assert.equal(updated.spender, spender);
      assert.equal(updated.createdAt, created.createdAt);

      const { makers } = await h.admin.listMakers();
      const listed = makers.filter((m) => m.address === account.address);
      assert.equal(listed.length, 1);
      assert.deepEqual(listed[0], updated);

      const badChecksum = '0xD8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
      await rejects(h.admin.putMaker(badChecksum, { active: true, pairs: ['ETH-USDC'], settlementModes: ['permit2'] }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.adjustBalance({ address: badChecksum, token: 'USDC', amount: '1', memo: 'x' }), 400, 'INVALID_REQUEST');
      const invalid = await rejects(h.admin.putMaker('0x1234', { active: true, pairs: ['ETH-USDC'], settlementModes: ['permit2'] }), 400, 'INVALID_REQUEST');
      assert.ok(fieldsOf(invalid).some((f) => f.includes('address')), JSON.stringify(invalid.details));
      await rejects(h.admin.putMaker(newAddress(), { active: true, pairs: ['eth/usdc'], settlementModes: ['permit2'] }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.putMaker(newAddress(), { active: true, pairs: ['ETH-USDC'], settlementModes: [] }), 400, 'INVALID_REQUEST');
      const xchange = await rejects(h.admin.putMaker(newAddress(), { active: true, pairs: ['ETH-USDC'], settlementModes: ['xchange'] }), 400, 'INVALID_REQUEST');
      assert.deepEqual(fieldsOf(xchange), ['adapterSigner']);
      assert.equal((await h.admin.listMakers()).makers.length, makers.length, 'refused registrations left nothing behind');
    });

    it('balances/adjust credits and debits; a debit below zero changes nothing; users see it in balances and ledger', async () => {
      const { client, account } = await h.newUser();
      const credit = await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '1000.5', memo: 'wire 42' });
      assert.match(credit.movementId, /^[0-9a-f-]{36}$/);
      assert.deepEqual(credit.balance, { token: 'USDC', rail: 'EVM', available: '1000.5', locked: '0', total: '1000.5' });
      await elapse(3, 'distinct createdAt, so "newest first" is observable');
      const debit = await h.admin.adjustBalance({ address: account.address.toLowerCase(), token: 'USDC', amount: '-0.25', memo: 'fee correction' });
      assert.equal(debit.balance.available, '1000.25');
      await elapse(3, 'distinct createdAt');
      const venue = await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '7', rail: 'VENUE', memo: 'venue transfer' });
      assert.deepEqual(venue.balance, { token: 'USDC', rail: 'VENUE', available: '7', locked: '0', total: '7' });

      const ledgerBefore = await client.ledger();
      const balancesBefore = await client.balances();
      const overdraw = await rejects(h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '-1000.250001', memo: 'too much' }), 400, 'INSUFFICIENT_BALANCE');
      assert.equal(overdraw.details?.token, 'USDC');
      await rejects(h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '-8', rail: 'VENUE', memo: 'too much' }), 400, 'INSUFFICIENT_BALANCE');
      await rejects(h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '1.0000001', memo: 'x' }), 400, 'AMOUNT_OVER_PRECISE');
      await rejects(h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '0', memo: 'x' }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: 'abc', memo: 'x' }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.adjustBalance({ address: account.address, token: 'NOPE', amount: '1', memo: 'x' }), 400, 'TOKEN_NOT_FOUND');
      await rejects(h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '1', memo: '' }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.adjustBalance({ address: '0xnope', token: 'USDC', amount: '1', memo: 'x' }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.call('POST', '/balances/adjust', { address: account.address, token: 'USDC', amount: '1', memo: 'x', rail: 'CEX' }), 400, 'INVALID_REQUEST');
      assert.deepEqual(await client.ledger(), ledgerBefore, 'refused adjustments wrote no ledger entries');
      assert.deepEqual(await client.balances(), balancesBefore, 'and moved no balance');

      const { balances } = balancesBefore;
      assert.deepEqual(balances, [
        { token: 'USDC', rail: 'EVM', available: '1000.25', locked: '0', total: '1000.25' },
        { token: 'USDC', rail: 'VENUE', available: '7', locked: '0', total: '7' },
      ]);
      const { entries } = ledgerBefore;
      assert.deepEqual(entries.map((e) => [e.source, e.token, e.rail, e.delta]), [
        ['ADJUSTMENT', 'USDC', 'VENUE', '7'],
        ['ADJUSTMENT', 'USDC', 'EVM', '-0.25'],
        ['ADJUSTMENT', 'USDC', 'EVM', '1000.5'],
      ], 'newest first, only the user side of each movement');
      for (let i = 1; i < entries.length; i++) assert.ok(entries[i - 1]!.createdAt >= entries[i]!.createdAt);
      for (const entry of entries) assert.match(entry.ledgerId, /^[0-9a-f-]{36}$/);

      // Exactly down to zero is allowed.
      const zero = await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '-7', rail: 'VENUE', memo: 'close out' });
      assert.deepEqual(zero.balance, { token: 'USDC', rail: 'VENUE', available: '0', locked: '0', total: '0' });
    });

    it('balances/adjust creates the user when new; the wallet sees the balance on first sign-in', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      await h.admin.adjustBalance({ address: account.address, token: 'ETH', amount: '1.000000000000000001', memo: 'airdrop' });
      const client = new RfqClient(h.url);
      await client.signIn(account);
      assert.deepEqual((await client.balances()).balances, [{ token: 'ETH', rail: 'EVM', available: '1.000000000000000001', locked: '0', total: '1.000000000000000001' }]);
      const { entries } = await client.ledger();
      assert.deepEqual(entries.map((e) => [e.source, e.delta]), [['ADJUSTMENT', '1.000000000000000001']]);
    });

    it('settings: get defaults, put known keys, refuse unknown keys and bad values', async () => {
      const initial = await h.admin.settings();
      assert.deepEqual(Object.keys(initial).sort(), ['ladderBandBps', 'makerFailureThreshold', 'makerFailureWindowMs', 'makerSuspensionBaseMs', 'maxOpenRfqsPerAccount', 'maxWindowMs', 'relayGraceSecs', 'settlementHeadroomSecs']);
      for (const value of Object.values(initial)) assert.ok(Number.isInteger(value));
      const updated = await h.admin.putSettings({ maxWindowMs: 20_000, settlementHeadroomSecs: 90 });
      assert.deepEqual(updated, { ...initial, maxWindowMs: 20_000, settlementHeadroomSecs: 90 });
      assert.deepEqual(await h.admin.settings(), updated);

      const unknown = await rejects(h.admin.putSettings({ maxWindowMillis: 1 }), 400, 'INVALID_REQUEST');
      assert.ok(JSON.stringify(unknown.details).includes('maxWindowMillis'), JSON.stringify(unknown.details));
      await rejects(h.admin.putSettings({ maxWindowMs: -1 }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.putSettings({ maxWindowMs: 1.5 }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.call('PUT', '/settings', { maxWindowMs: '1000' }), 400, 'INVALID_REQUEST');
      assert.deepEqual(await h.admin.settings(), updated, 'refused writes changed nothing');

      assert.deepEqual(await h.admin.putSettings({}), updated, 'an empty body is a no-op');
      assert.deepEqual(await h.admin.putSettings(initial), initial);
    });

    it('invariants hold after all of the above', async () => {
      const result = await h.admin.invariants();
      assert.deepEqual(result, { ok: true, violations: [] });
    });
  });
}
