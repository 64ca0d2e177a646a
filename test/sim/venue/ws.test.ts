// The simulator's WebSocket against the unmodified SDK: subscriptions answered, snapshots first,
// fills, order updates and ledger updates pushed after the request that made them, the venue's
// 10-user limit per IP, ping, and a user's pushes reaching only that user's subscribers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocketTransport } from '@nktkas/hyperliquid';
import { orderUpdates, userFills, userNonFundingLedgerUpdates, type OrderUpdatesEvent, type UserFillsEvent, type UserNonFundingLedgerUpdatesEvent } from '@nktkas/hyperliquid/api/subscription';
import WebSocket from 'ws';
import { cloidOf, limit, newWallet, restingOf, startSim, type SimFixture } from './helpers.ts';
import { MAX_USERS_PER_IP } from '../../../sim/venue/ws.ts';
import { eventually } from '../../helpers/eventually.ts';

const SOL = 2;

let f: SimFixture;
const transports: WebSocketTransport[] = [];
before(async () => {
  f = await startSim();
  await f.control.book({ coin: 'SOL', enabled: false });
});
after(async () => {
  await Promise.all(transports.map((t) => t.close().catch(() => undefined)));
  await f.sim.stop();
});

/** Waits for a push (bounded), failing with `what` if it does not come. */
async function waitFor(condition: () => boolean, what: string): Promise<void> {
  assert.ok(await eventually(async () => condition(), Boolean, 5_000, 10), `${what} did not arrive`);
}

function socket(): WebSocketTransport {
  const t = new WebSocketTransport({ url: f.sim.wsUrl, timeout: 5_000, reconnect: { maxRetries: 0 } });
  transports.push(t);
  return t;
}

async function funded() {
  const w = newWallet();
  await f.control.fund({ user: w.address, account: 'perp', token: 'USDC', amount: '100000' });
  return { w, ex: f.exchange(w) };
}

describe('venue simulator: WebSocket subscriptions', () => {
  it('pushes a trade to both sides as userFills, the orders as orderUpdates, each after its snapshot', async () => {
    const maker = await funded();
    const taker = await funded();
    const transport = socket();
    const makerFills: UserFillsEvent[] = [];
    const takerFills: UserFillsEvent[] = [];
    const makerOrders: OrderUpdatesEvent[] = [];
    await userFills({ transport }, { user: maker.w.address }, (e) => makerFills.push(e));
    await userFills({ transport }, { user: taker.w.address }, (e) => takerFills.push(e));
    await waitFor(() => makerFills.length === 1 && takerFills.length === 1, 'both snapshots');
    assert.equal(makerFills[0]!.isSnapshot, true);
    assert.deepEqual(makerFills[0]!.fills, []);

    const orderSocket = socket();
    await orderUpdates({ transport: orderSocket }, { user: maker.w.address }, (e) => makerOrders.push(e));
    restingOf(await maker.ex.order({ orders: [limit(SOL, false, '150', '2', 'Gtc', cloidOf(1))], grouping: 'na' }));
    await waitFor(() => makerOrders.length === 1, 'the resting order pushed');
    assert.deepEqual([makerOrders[0]![0]!.status, makerOrders[0]![0]!.order.cloid, makerOrders[0]![0]!.order.sz], ['open', cloidOf(1), '2.0']);

    await taker.ex.order({ orders: [limit(SOL, true, '150', '2', 'Ioc', cloidOf(2))], grouping: 'na' });
    await waitFor(() => makerFills.length === 2 && takerFills.length === 2 && makerOrders.length === 2, 'the trade pushed');
    const [pushedMaker, pushedTaker] = [makerFills[1]!, takerFills[1]!];
    assert.equal(pushedMaker.isSnapshot, undefined);
    assert.equal(pushedMaker.fills.length, 1);
    // The same fill the REST history shows, number forms included.
    const rest = await f.info.userFills({ user: taker.w.address });
    assert.deepEqual(pushedTaker.fills, rest);
    assert.equal(pushedMaker.fills[0]!.tid, pushedTaker.fills[0]!.tid);
    assert.deepEqual([makerOrders[1]![0]!.status, makerOrders[1]![0]!.order.sz], ['filled', '0.0']);

    // A new subscriber starts from what is already there.
    const late: UserFillsEvent[] = [];
    await userFills({ transport: socket() }, { user: taker.w.address }, (e) => late.push(e));
    await waitFor(() => late.length === 1, 'the snapshot');
    assert.deepEqual(late[0]!.fills, rest);
  });

  it('pushes ledger updates (a spot transfer) to the sender and the receiver', async () => {
    const from = newWallet();
    const to = newWallet();
    await f.control.fund({ user: from.address, account: 'spot', token: 'USDC', amount: '50' });
    const events: UserNonFundingLedgerUpdatesEvent[] = [];
    await userNonFundingLedgerUpdates({ transport: socket() }, { user: to.address }, (e) => events.push(e));
    await waitFor(() => events.length === 1, 'the snapshot');
    assert.deepEqual([events[0]!.isSnapshot, events[0]!.nonFundingLedgerUpdates], [true, []]);
    const token = (await f.info.spotMeta()).tokens.find((t) => t.name === 'USDC')!;
    await f.exchange(from).spotSend({ destination: to.address, token: `USDC:${token.tokenId}`, amount: '12.5' });
    await waitFor(() => events.length === 2, 'the transfer pushed');
    const [update] = events[1]!.nonFundingLedgerUpdates;
    assert.equal(update!.delta.type, 'spotTransfer');
    const rest = await f.info.userNonFundingLedgerUpdates({ user: to.address, startTime: 0 });
    assert.deepEqual(events[1]!.nonFundingLedgerUpdates, rest);
  });

  it('refuses an 11th user on one IP, an unknown channel, a second identical subscription; answers ping', async () => {
    const raw = new WebSocket(f.sim.wsUrl);
    await new Promise((resolve) => raw.once('open', resolve));
    const replies: Array<{ channel: string; data?: unknown }> = [];
    raw.on('message', (data) => replies.push(JSON.parse(String(data)) as { channel: string }));
    const sub = (user: string, type = 'orderUpdates') => raw.send(JSON.stringify({ method: 'subscribe', subscription: { type, user } }));
    // The other tests' subscriptions on this IP count too.
    const users = Array.from({ length: MAX_USERS_PER_IP + 1 }, () => newWallet().address.toLowerCase());
    for (const user of users) sub(user);
    raw.send(JSON.stringify({ method: 'ping' }));
    sub(users[0]!);
    sub(users[0]!, 'l4Book');
    await waitFor(() => replies.length >= users.length + 3, 'every answer');
    assert.ok(replies.some((r) => r.channel === 'pong'));
    const errors = replies.filter((r) => r.channel === 'error').map((r) => String(r.data));
    assert.ok(errors.some((e) => e.startsWith(`Cannot track more than ${MAX_USERS_PER_IP} total users`)), errors.join('\n'));
    assert.ok(errors.some((e) => e.startsWith('Already subscribed')), errors.join('\n'));
    assert.ok(errors.some((e) => e.startsWith('Invalid subscription')), errors.join('\n'));
    const answered = replies.filter((r) => r.channel === 'subscriptionResponse').length;
    assert.ok(answered < users.length, `${answered} subscriptions answered of ${users.length}`);
    raw.close();
  });
});
