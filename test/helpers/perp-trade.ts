/**
 * Perp trades against the venue simulator with the parts a user has: the reference maker
 * (examples/maker/) quoting ETH-USDC-PERP from the venue's book, and a taker using the client
 * library's PerpTaker. For tests that need a perp trade to have happened (maker protection,
 * the console's perp executions page) rather than tests of the perp execution itself.
 */
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { VenueSimControl } from '../../sim/venue/control.ts';
import { ReferenceMaker, type MakerInstrument, type ReferenceMakerOptions } from '../../examples/maker/maker.ts';
import { PerpTaker } from '../../src/client/perp-taker.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import type { Quote, Rfq, Side } from '../../src/client/types.ts';
import { eventually } from './eventually.ts';
import type { Harness } from './harness.ts';

export const PERP = 'ETH-USDC-PERP';

/** The harness's `venue` option for a simulator at `url`, with this builder address. */
export const venueOption = (url: string, builderAddress: Address) => ({ url, network: 'mainnet' as const, builderAddress });

/** Lists the perp instrument the simulator's ETH trades as (the seeded data has spot only). */
export async function listPerpInstrument(h: Harness): Promise<void> {
  await h.admin.putInstrument(PERP, { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
}

/** A fresh key whose venue perp account holds `usdc`. */
export async function venueKey(venueUrl: string, usdc = '100000'): Promise<Hex> {
  const key = generatePrivateKey();
  await new VenueSimControl(venueUrl).fund({ user: privateKeyToAccount(key).address, account: 'perp', token: 'USDC', amount: usdc });
  return key;
}

/** A registered perp maker running the reference maker on ETH-USDC-PERP; `options` override its defaults. */
export async function startPerpMaker(h: Harness, venueUrl: string, market: Partial<MakerInstrument> = {}, options: Partial<ReferenceMakerOptions> = {}): Promise<ReferenceMaker> {
  const key = await venueKey(venueUrl);
  await h.admin.putMaker(privateKeyToAccount(key).address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
  const maker = new ReferenceMaker({
    baseUrl: h.url,
    privateKey: key,
    venue: { url: venueUrl, network: 'mainnet' },
    instruments: [{ instrumentId: PERP, referencePrice: '3500', spreadBp: 10, maxBaseQty: '5', levelSize: '1', ...market }],
    tickMs: 200,
    log: () => undefined,
    ...options,
  });
  await maker.start();
  return maker;
}

export interface PerpTakerUser {
  account: PrivateKeyAccount;
  client: RfqClient;
  taker: PerpTaker;
}

/** A signed-in taker with venue margin, trading through the client library. */
export async function perpTakerUser(h: Harness, venueUrl: string, builderAddress: Address): Promise<PerpTakerUser> {
  const account = privateKeyToAccount(await venueKey(venueUrl));
  const client = new RfqClient(h.url);
  await client.signIn(account);
  const taker = await PerpTaker.connect(client, account, venueOption(venueUrl, builderAddress));
  return { account, client, taker };
}

/** An RFQ of `size` ETH-USDC-PERP and the first quote on it (a maker must be quoting). */
export async function quotedPerpRfq(user: PerpTakerUser, side: Side, size = '0.1'): Promise<{ rfqId: string; quote: Quote }> {
  const quoteLimit = await user.taker.defaultLimit(PERP, side, size);
  const { rfqId } = await user.client.createRfq({ instrumentId: PERP, side, baseQty: size, quoteLimit, windowMs: 30_000 });
  const quotes = await eventually(() => user.client.rfqQuotes(rfqId), (page) => page.items.length > 0);
  const quote = quotes.items[0] as Quote | undefined;
  assert.ok(quote, `a maker quoted ${rfqId}`);
  return { rfqId, quote };
}

/** Accepts `quote` with a signed taker order and waits for the RFQ's outcome. */
export async function acceptPerp(user: PerpTakerUser, rfqId: string, side: Side, quote: Quote): Promise<Rfq> {
  await user.taker.accept({ id: rfqId, instrumentId: PERP, side }, quote);
  return eventually(() => user.client.getRfq(rfqId), (r) => r.status === 'SETTLED' || r.status === 'FAILED');
}

/** One whole perp trade: RFQ, the maker's quote, accept, outcome. */
export async function perpTrade(user: PerpTakerUser, side: Side, size = '0.1'): Promise<{ rfq: Rfq; quote: Quote }> {
  const { rfqId, quote } = await quotedPerpRfq(user, side, size);
  return { rfq: await acceptPerp(user, rfqId, side, quote), quote };
}
