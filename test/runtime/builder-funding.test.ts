/**
 * The builder account's funding as a production check (DESIGN.md 13): a node whose builder holds
 * less than 100 USDC of perps account value at the venue is not ready, `/readyz` says why, and
 * the gauge shows the value; funded, it is ready.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startVenueSim, type VenueSim } from '../../sim/venue/index.ts';
import { VenueSimControl } from '../../sim/venue/control.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { eventually } from '../helpers/eventually.ts';
import { belowMinimum } from '../../src/runtime/builder-funding.ts';

const BUILDER = '0x00000000000000000000000000000000000000b2';

describe('builder funding', () => {
  let sim: VenueSim;
  let h: Harness;
  before(async () => {
    sim = await startVenueSim({ port: 0 });
    h = await startHarness('pglite', { venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER }, venueChecks: { builderFundingIntervalMs: 100 } });
  });
  after(async () => {
    await h?.close();
    await sim?.stop();
  });

  const readyz = async () => {
    const response = await fetch(`${h.url}/readyz`);
    return { status: response.status, body: (await response.json()) as { reasons?: string[] } };
  };
  const gauge = async () => /^rfq_venue_builder_account_value_usdc (\S+)$/m.exec(await (await fetch(`${h.url}/metrics`)).text())?.[1];

  it('is not ready below 100 USDC, with the reason and the gauge; ready once funded', async () => {
    const unfunded = await eventually(readyz, (r) => r.status === 503);
    assert.match(unfunded.body.reasons?.join('\n') ?? '', /builder 0x0{38}b2 holds 0\.0 USDC of perps account value; the venue approves no builder fee below 100 USDC/);
    assert.equal(await gauge(), '0');
    await new VenueSimControl(sim.url).fund({ user: BUILDER, account: 'perp', token: 'USDC', amount: '99.99' });
    await eventually(gauge, (value) => value === '99.99');
    assert.equal((await readyz()).status, 503);
    await new VenueSimControl(sim.url).fund({ user: BUILDER, account: 'perp', token: 'USDC', amount: '0.01' });
    const ready = await eventually(readyz, (r) => r.status === 200);
    assert.equal(ready.body.reasons, undefined);
  });

  it('reads the venue\u2019s decimals, negative ones included', () => {
    assert.ok(belowMinimum('99.999999', 100));
    assert.ok(!belowMinimum('100.0', 100));
    assert.ok(belowMinimum('-5.0', 100));
    assert.ok(!belowMinimum('1182.312496', 100));
  });
});
