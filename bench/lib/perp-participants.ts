/**
 * The perp benches' participants on one node and one simulator: ETH-USDC-PERP listed at a 2 bp
 * builder fee, a maker with the perp mode and a taker with the fee approved, both funded at the
 * venue and signed in, and the asset as the venue lists it.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { VenueSimControl } from '../../sim/venue/control.ts';
import { PerpTaker } from '../../src/client/perp-taker.ts';
import { PerpVenueClient } from '../../src/client/perp-order.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import type { Harness } from '../../test/helpers/harness.ts';

export async function perpParticipants(h: Harness, simUrl: string, builderAddress: `0x${string}`, maxOpenRfqs: number) {
  const control = new VenueSimControl(simUrl);
  const venueAccount = async (usdc: string) => {
    const account = privateKeyToAccount(generatePrivateKey());
    await control.fund({ user: account.address, account: 'perp', token: 'USDC', amount: usdc });
    return { account, client: new RfqClient(h.url) };
  };
  // All RFQs may be open at once, and their auctions outlast a bench's preparation.
  await h.admin.putSettings({ maxOpenRfqsPerAccount: maxOpenRfqs, maxWindowMs: 300_000 });
  await h.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
  const maker = await venueAccount('10000000');
  await h.admin.putMaker(maker.account.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
  await maker.client.signIn(maker.account);
  const taker = await venueAccount('10000000');
  await taker.client.signIn(taker.account);
  const perp = await PerpTaker.connect(taker.client, taker.account, { url: simUrl, network: 'mainnet', builderAddress });
  await perp.ensureBuilderFee(20);
  const asset = await new PerpVenueClient(simUrl, 'mainnet').asset('ETH');
  return { control, venueAccount, maker, taker, perp, asset };
}
