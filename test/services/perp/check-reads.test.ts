/**
 * The checks' reads started when a perp accept arrives (src/services/perp/check-reads.ts), against
 * the venue simulator over HTTP: handed over once and only for the very order text the execution
 * records, the approval read for the taker named at arrival, the signer recovered from that text
 * as the execution would, nothing kept for an accept nobody takes.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { signL1Action } from '@nktkas/hyperliquid/signing';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startVenueSim, type VenueSim } from '../../../sim/venue/index.ts';
import { VenueSimControl } from '../../../sim/venue/control.ts';
import { VenueClient } from '../../../src/venue/venue-client.ts';
import { CheckReadsAhead, recoverSigner, warmUpRecovery } from '../../../src/services/perp/check-reads.ts';

const BUILDER = '0x00000000000000000000000000000000000000b1' as const;

describe('CheckReadsAhead against the simulator', () => {
  let sim: VenueSim;
  let ahead: CheckReadsAhead;
  const taker = privateKeyToAccount(generatePrivateKey());
  let order: { action: Record<string, unknown>; nonce: number; signature: { r: string; s: string; v: number } };

  before(async () => {
    sim = await startVenueSim({ port: 0 });
    const venue = new VenueClient({ url: sim.url, network: 'mainnet', builderAddress: BUILDER });
    ahead = new CheckReadsAhead({ venue, network: 'mainnet', builderAddress: BUILDER, clock: { now: () => Date.now() } });
    await new VenueSimControl(sim.url).fund({ user: taker.address, account: 'perp', token: 'USDC', amount: '1000' });
    const action = { type: 'order', orders: [{ a: 1, b: true, p: '3500', s: '0.1', r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' };
    const nonce = Date.now();
    const signature = await signL1Action({ wallet: taker, action, nonce, isTestnet: false });
    order = { action, nonce, signature };
  });
  after(async () => sim?.stop());

  it('hands the reads over once, for the same order text, with the signer and both venue reads', async () => {
    ahead.arrived('rfq_1', order, taker.address);
    assert.equal(ahead.size, 1);
    const reads = ahead.take('rfq_1', JSON.stringify(order));
    assert.ok(reads, 'taken for the very text the execution records');
    assert.equal(ahead.take('rfq_1', JSON.stringify(order)), null, 'handed over once');
    assert.equal(ahead.size, 0);
    assert.equal(reads.taker, taker.address.toLowerCase());
    const recovered = await reads.recovery;
    assert.equal(recovered.address?.toLowerCase(), taker.address.toLowerCase());
    const meta = await reads.meta;
    assert.ok(meta.reply?.universe.some((asset) => asset.name === 'ETH'));
    assert.equal(meta.record.kind, 'meta');
    const fee = await reads.fee!;
    assert.equal(fee.reply, 0, 'no approval yet: the venue answers 0');
    assert.deepEqual(fee.record.request, { type: 'maxBuilderFee', user: taker.address.toLowerCase(), builder: BUILDER });
  });

  it('refuses to hand over reads started for another order text (key order is signed)', async () => {
    ahead.arrived('rfq_2', order, taker.address);
    const reordered = { nonce: order.nonce, action: order.action, signature: order.signature };
    assert.equal(ahead.take('rfq_2', JSON.stringify(reordered)), null);
    assert.equal(ahead.size, 0, 'dropped: the execution reads afresh');
  });

  it('a later arrival for the same RFQ replaces the earlier one; an unknown RFQ has none', async () => {
    const other = { ...order, nonce: order.nonce + 1 };
    ahead.arrived('rfq_3', order, taker.address);
    ahead.arrived('rfq_3', other, taker.address);
    assert.equal(ahead.size, 1);
    assert.equal(ahead.take('rfq_3', JSON.stringify(order)), null);
    assert.equal(ahead.take('rfq_none', JSON.stringify(order)), null);
  });

  it('an order that is not JSON text keeps nothing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    ahead.arrived('rfq_4', cyclic, taker.address);
    ahead.arrived('rfq_5', undefined, taker.address);
    assert.equal(ahead.size, 0);
  });

  it('a signature that does not recover is an error, never a rejection; the warm-up recovers nothing', async () => {
    const broken = await recoverSigner({ ...order, signature: { ...order.signature, r: `0x${'0'.repeat(64)}` } }, 'mainnet');
    assert.equal(broken.address, null);
    assert.ok(broken.error instanceof Error);
    await warmUpRecovery('mainnet', 2);
  });
});
