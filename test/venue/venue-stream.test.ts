/**
 * The venue stream's own lifecycle: live once both snapshots arrive, down when the venue drops
 * the socket, live again when it lets it back; its WebSocket URL from the venue's HTTP URL; and
 * stopped after the venue has gone, nothing of it left reconnecting (the process exits).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pino from 'pino';
import { startVenueSim, type VenueSim } from '../../sim/venue/index.ts';
import { VenueStream, venueSocketUrl } from '../../src/venue/venue-stream.ts';
import { eventually } from '../helpers/eventually.ts';

const run = promisify(execFile);

describe('venue stream', () => {
  let sim: VenueSim;
  before(async () => {
    sim = await startVenueSim({ dataDir: null, port: 0 });
  });
  after(() => sim.stop());

  it('names the venue’s WebSocket for its HTTP API URL', () => {
    assert.equal(venueSocketUrl('https://api.hyperliquid.xyz'), 'wss://api.hyperliquid.xyz/ws');
    assert.equal(venueSocketUrl('https://api.hyperliquid-testnet.xyz/'), 'wss://api.hyperliquid-testnet.xyz/ws');
    assert.equal(venueSocketUrl(sim.url), sim.wsUrl);
  });

  it('goes live after both snapshots, down when the venue drops it, live again after', async () => {
    const events: string[] = [];
    const stream = new VenueStream({ url: sim.wsUrl, user: `0x${'2'.repeat(40)}`, logger: pino({ level: 'silent' }) });
    stream.start({ fills: (_, snapshot) => events.push(`fills${snapshot ? ' snapshot' : ''}`), ledger: (_, snapshot) => events.push(`ledger${snapshot ? ' snapshot' : ''}`), orderUpdates: () => events.push('orders'), live: () => events.push('live'), down: () => events.push('down') });
    try {
      assert.equal(await eventually(async () => stream.live, Boolean, 5_000, 10), true);
      assert.deepEqual(new Set(events.slice(0, 3)), new Set(['fills snapshot', 'ledger snapshot', 'live']));
      assert.equal(events.indexOf('live'), 2, 'live only after both snapshots');
      await fetch(`${sim.url}/_sim/ws/drop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refuseMs: 300 }) });
      assert.equal(await eventually(async () => stream.live, (live) => !live, 5_000, 10), false);
      assert.equal(await eventually(async () => stream.live, Boolean, 10_000, 10), true);
      assert.deepEqual(events.filter((e) => e === 'live' || e === 'down'), ['live', 'down', 'live']);
    } finally {
      await stream.stop();
    }
  });

  it('stopped after the venue has gone, leaves nothing reconnecting: the process exits', async () => {
    const { stdout } = await run(process.execPath, ['test/venue/fixtures/stream-after-venue-gone.ts'], { timeout: 15_000 });
    assert.equal(stdout.trim(), 'stopped');
  });
});
