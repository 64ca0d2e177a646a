/**
 * Counterparty choice with anonymity kept (DESIGN.md section 15), on each backend: disclosed
 * makers' aliases, RFQs naming or excluding makers, takers' per-maker pseudonyms and a maker's
 * denylist; and against leaks: no taker address or account id where a pseudonym is meant, and two
 * makers never see one pseudonym for the same taker. "Not delivered" is shown with a barrier: a
 * later RFQ's frame reaches the maker first (the dispatcher delivers in commit order).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { backends } from '../../helpers/backends.ts';
import { useWsHarness } from '../../helpers/ws-harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { INSTRUMENT, fundedTaker } from '../../helpers/protection.ts';
import { subscribe, type Frame, type TestSocket } from '../../ws/test-socket.ts';
import type { RfqClient } from '../../../src/client/rfq-client.ts';
import type { CreateRfqInput } from '../../../src/client/types.ts';

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

for (const backend of backends()) {
  describe(`counterparty choice [${backend}]`, () => {
    const ws = useWsHarness(backend);

    const rfq = (taker: RfqClient, extra: Partial<CreateRfqInput> = {}) =>
      taker.createRfq({ instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: false, windowMs: 60_000, ...extra });
    const quote = (maker: RfqClient, rfqId: string) =>
      maker.submitQuote({ rfqId, instrumentId: INSTRUMENT, side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3000' } });
    /** A maker with a socket on the instrument's open RFQs, disclosed under `alias` when given. */
    async function maker(alias?: string) {
      const m = await ws.h.newMaker(['ETH-USDC']);
      if (alias !== undefined) assert.deepEqual(await m.client.setProfile(alias), { alias });
      const socket = await ws.session(m.client);
      await subscribe(socket, { topic: 'openRfqs', instrumentId: INSTRUMENT });
      return { ...m, socket };
    }
    const nextRfq = (socket: TestSocket) => socket.next((f) => f.kind === 'rfq');
    const listed = async (m: RfqClient) => (await m.openRfqs({ limit: 100 })).items;
    async function accountOf(address: string): Promise<string> {
      const row = await ws.h.node.store.db.selectFrom('accounts').select('id').where((eb) => eb(eb.fn('lower', ['address']), '=', address.toLowerCase())).executeTakeFirstOrThrow();
      return row.id;
    }

    it('a maker publishes a unique alias, withdraws it with null; the disclosed ones are listed to any account', async () => {
      const alpha = unique('Alpha');
      const a = await ws.h.newMaker(['ETH-USDC']);
      const b = await ws.h.newMaker(['ETH-USDC']);
      const taker = await fundedTaker(ws.h);
      assert.deepEqual(await a.client.profile(), { alias: null });
      assert.deepEqual(await a.client.setProfile(alpha), { alias: alpha });
      assert.deepEqual(await a.client.profile(), { alias: alpha });
      await rejects(b.client.setProfile(alpha.toUpperCase()), 409, 'ALIAS_TAKEN');
      for (const bad of ['ab', 'with space', '0xabcdef12', '-lead', 'x'.repeat(33)]) await rejects(b.client.setProfile(bad), 400, 'INVALID_REQUEST');
      await rejects(taker.setProfile('taker-alias'), 403, 'MAKER_SCOPE_REQUIRED');
      assert.ok((await taker.disclosedMakers()).makers.some((m) => m.alias === alpha), 'listed to a taker');
      assert.deepEqual(await a.client.setProfile(null), { alias: null });
      assert.ok(!(await taker.disclosedMakers()).makers.some((m) => m.alias === alpha), 'withdrawn');
      // Freed: another maker may take it.
      assert.deepEqual(await b.client.setProfile(alpha), { alias: alpha });
      await rejects(rfq(taker, { makers: [unique('nobody')] }), 400, 'INVALID_REQUEST');
    });

    it('an RFQ naming makers reaches only them; excluding makers keeps it from them; unknown or conflicting names are 400', async () => {
      const [aliasA, aliasB] = [unique('desk-a'), unique('desk-b')];
      const a = await maker(aliasA);
      const b = await maker(aliasB);
      const c = await maker();
      const taker = await fundedTaker(ws.h);
      const seenByB = (await b.client.scorecard()).rfqsSeen;

      const named = await rfq(taker, { makers: [aliasA.toUpperCase()] });
      assert.equal((await nextRfq(a.socket)).id, named.rfqId);
      const barrier = await rfq(taker);
      for (const other of [b, c]) assert.equal((await nextRfq(other.socket)).id, barrier.rfqId, 'the named RFQ never reached a maker it does not name');
      assert.equal((await nextRfq(a.socket)).id, barrier.rfqId);
      assert.ok((await listed(a.client)).some((r) => r.id === named.rfqId));
      for (const other of [b, c]) {
        assert.ok(!(await listed(other.client)).some((r) => r.id === named.rfqId));
        await rejects(quote(other.client, named.rfqId), 404, 'NOT_FOUND');
      }
      assert.equal((await quote(a.client, named.rfqId)).status, 'SUBMITTED');
      assert.equal((await b.client.scorecard()).rfqsSeen, seenByB + 1, "b's RFQs seen count the barrier only");

      const excluding = await rfq(taker, { excludeMakers: [aliasA] });
      for (const other of [b, c]) assert.equal((await nextRfq(other.socket)).id, excluding.rfqId);
      const after = await rfq(taker);
      assert.equal((await nextRfq(a.socket)).id, after.rfqId, 'the excluding RFQ never reached the excluded maker');
      await rejects(quote(a.client, excluding.rfqId), 404, 'NOT_FOUND');

      const unknown = await rejects(rfq(taker, { makers: [aliasA, 'no-such-desk'] }), 400, 'INVALID_REQUEST');
      assert.deepEqual((unknown.details as { errors: Array<{ field: string; reason: string }> }).errors.map((e) => [e.field, e.reason]), [['makers[1]', 'unknownAlias']]);
      await rejects(rfq(taker, { makers: [aliasA], excludeMakers: [aliasB] }), 400, 'INVALID_REQUEST');
      await rejects(rfq(taker, { makers: [] }), 400, 'INVALID_REQUEST');
    });

    it('takers are pseudonymous: stable for a maker, different between makers and between takers, never an address or account id', async () => {
      const a = await maker();
      const b = await maker();
      const taker = await ws.h.newUser();
      await ws.h.fund(taker.account.address, { USDC: '100000' });
      const other = await fundedTaker(ws.h);
      const takerAccount = await accountOf(taker.account.address);

      const frames: Frame[] = [];
      const first = await rfq(taker.client);
      const second = await rfq(taker.client);
      const third = await rfq(other);
      for (const m of [a, b]) for (const id of [first.rfqId, second.rfqId, third.rfqId]) {
        const frame = await nextRfq(m.socket);
        assert.equal(frame.id, id);
        frames.push({ ...frame, maker: m.makerId });
      }
      const pseudonym = (makerId: string, rfqId: string) => frames.find((f) => f.maker === makerId && f.id === rfqId)!.taker as string;
      for (const m of [a, b]) {
        assert.match(pseudonym(m.makerId, first.rfqId), /^tkr_[a-z2-7]{16}$/);
        assert.equal(pseudonym(m.makerId, first.rfqId), pseudonym(m.makerId, second.rfqId), 'stable for one maker');
        assert.notEqual(pseudonym(m.makerId, first.rfqId), pseudonym(m.makerId, third.rfqId), 'another taker, another pseudonym');
        const listing = await listed(m.client);
        assert.equal(listing.find((r) => r.id === first.rfqId)?.taker, pseudonym(m.makerId, first.rfqId), 'the listing shows the same pseudonym');
        const seen = JSON.stringify([listing, frames]).toLowerCase();
        for (const secret of [taker.account.address.toLowerCase(), taker.account.address.slice(2).toLowerCase(), takerAccount]) assert.ok(!seen.includes(secret), `${secret} leaked to a maker`);
        assert.ok(!seen.includes('"route"') && !seen.includes('audience'), 'the routing never leaves the node');
      }
      assert.notEqual(pseudonym(a.makerId, first.rfqId), pseudonym(b.makerId, first.rfqId), 'two makers never see one pseudonym for the same taker');
    });

    it('a maker denies a taker by its pseudonym: the taker\'s RFQs stop reaching it, leave its listing, and its quotes on them are refused', async () => {
      const a = await maker();
      const b = await maker();
      const taker = await fundedTaker(ws.h);
      const other = await fundedTaker(ws.h);
      const before = await rfq(taker);
      const seen = await nextRfq(a.socket);
      const p = seen.taker as string;
      await nextRfq(b.socket);

      for (const bad of [['not-a-pseudonym'], ['tkr_aaaaaaaaaaaaaaaa']]) await rejects(a.client.setDenylist(bad), 400, 'INVALID_REQUEST');
      assert.deepEqual(await a.client.denylist(), { takers: [] });
      assert.deepEqual(await a.client.setDenylist([p, p]), { takers: [p] });
      assert.deepEqual(await a.client.denylist(), { takers: [p] });
      const refused = await rejects(quote(a.client, before.rfqId), 403, 'COUNTERPARTY_DENIED');
      assert.deepEqual(refused.details, { taker: p });
      assert.ok(!(await listed(a.client)).some((r) => r.id === before.rfqId), 'an RFQ from before the denial leaves the listing');
      assert.equal((await quote(b.client, before.rfqId)).status, 'SUBMITTED', 'another maker is unaffected');

      const denied = await rfq(taker);
      const barrier = await rfq(other);
      assert.equal((await nextRfq(a.socket)).id, barrier.rfqId, 'no frame of the denied taker');
      assert.equal((await nextRfq(b.socket)).id, denied.rfqId);
      await rejects(quote(a.client, denied.rfqId), 403, 'COUNTERPARTY_DENIED');

      assert.deepEqual(await a.client.setDenylist([]), { takers: [] });
      const again = await rfq(taker);
      const frame = await nextRfq(a.socket);
      assert.deepEqual([frame.id, frame.taker], [again.rfqId, p], 'lifted: reached again, under the same pseudonym');
      assert.equal((await quote(a.client, again.rfqId)).status, 'SUBMITTED');
      // One created while it was denied stays out of its reach: it never saw it.
      await rejects(quote(a.client, denied.rfqId), 404, 'NOT_FOUND');
    });
  });
}
