/**
 * The taker CLI on perps (`npm run rfq -- buy 0.1 ETH-USDC-PERP`), run as a child process against
 * a real node executing on the venue simulator, with a maker whose venue orders the client
 * library signs (signMakerOrders): the CLI finds its wallet key (flag, the key it logged in with,
 * or the embedded demo taker's), derives a limit from the venue's book, approves the builder fee
 * from the main wallet, signs the IOC for the quote it accepts, and prints the fill read from
 * the executed quote. Without a key it says so and sends nothing.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InfoClient, HttpTransport } from '@nktkas/hyperliquid';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startVenueSim, type VenueSim } from '../../sim/venue/index.ts';
import { VenueSimControl } from '../../sim/venue/control.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { formatAmount } from '../../src/domain/money/index.ts';
import { onPerpGrid, PerpVenueClient, signMakerOrders, perpMakerLegs, VenueNonces } from '../../src/client/perp-order.ts';
import { backends } from '../helpers/backends.ts';
import { exited, failed, json, openRfq, runCli, type Run } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

const BUILDER = '0x00000000000000000000000000000000000000b2';

for (const backend of backends()) {
  describe(`taker CLI on perps [${backend}]`, () => {
    let sim: VenueSim;
    let h: Harness;
    let scratch: string;
    let maker: { client: RfqClient; account: PrivateKeyAccount };
    const makerNonces = new VenueNonces();
    let venue: PerpVenueClient;

    const cli = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
      runCli('src/runtime/rfq-cli.ts', ['--url', h.url, ...args], scratch, { RFQ_VENUE_URL: sim.url, RFQ_VENUE_BUILDER_ADDRESS: BUILDER, ...env });

    /** Quotes the CLI's RFQ from the venue's book: inside the spread, so the taker's IOC meets this order. */
    async function quoteWhenOpen(side: 'BUY' | 'SELL', size: string) {
      const rfq = await openRfq(maker.client, (r) => r.instrumentId === 'ETH-USDC-PERP' && r.side === side && r.baseQty === size);
      const asset = await venue.asset('ETH');
      const touch = await venue.touch('ETH');
      const mid = (touch.bestBid! + touch.bestAsk!) / 2n;
      const price = onPerpGrid(mid, asset.szDecimals, side === 'BUY' ? 'up' : 'down');
      const legs = perpMakerLegs({ side, asset, size, price });
      const orders = await signMakerOrders(maker.account, { side, asset, size, price }, 'mainnet', makerNonces);
      const quote = await maker.client.submitQuote({ rfqId: rfq.id, instrumentId: 'ETH-USDC-PERP', side, makerPays: legs.makerPays, makerReceives: legs.makerReceives, ...orders });
      return { rfq, quote, price };
    }

    async function venueAccount(): Promise<{ key: `0x${string}`; account: PrivateKeyAccount }> {
      const key = generatePrivateKey();
      const account = privateKeyToAccount(key);
      await new VenueSimControl(sim.url).fund({ user: account.address, account: 'perp', token: 'USDC', amount: '100000' });
      return { key, account };
    }

    before(async () => {
      sim = await startVenueSim({ port: 0 });
      venue = new PerpVenueClient(sim.url, 'mainnet');
      h = await startHarness(backend, { logLevel: 'silent', venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER } });
      await h.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
      scratch = await mkdtemp(path.join(tmpdir(), 'rfq-perp-cli-'));
      const { account } = await venueAccount();
      await h.admin.putMaker(account.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
      maker = { client: new RfqClient(h.url), account };
      await maker.client.signIn(account);
    });
    after(async () => {
      await h?.close();
      await sim?.stop();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    it('buy: logged in with --private-key, approves the builder fee, signs the IOC and prints the fill', async () => {
      const { key, account } = await venueAccount();
      const creds = path.join(scratch, 'wallet.json');
      exited(await cli(['--credentials', creds, 'login', '--private-key', key]), 0);
      const running = cli(['--credentials', creds, 'buy', '0.1', 'ETH-USDC-PERP', '--window', '3s']);
      const { rfq, quote, price } = await quoteWhenOpen('BUY', '0.1');
      const run = exited(await running, 0);
      const out = run.stdout;
      assert.match(out, /^no --limit: using \d+(\.\d+)? USDC/m);
      assert.match(out, /^approved a builder fee of 20 tenths of a bp/m);
      assert.match(out, new RegExp(`^signed buy IOC 0\\.1 @ ${formatAmount(price, 6).replace('.', '\\.')} \\(cloid 0x[0-9a-f]{32}, nonce \\d+\\)$`, 'm'));
      assert.match(out, new RegExp(`^SETTLED ${rfq.id}$`, 'm'));
      assert.match(out, /^ {2}bought {4}0\.1 ETH \(perp\) of 0\.1$/m);
      assert.match(out, new RegExp(`^ {2}quote {5}${quote.quoteId}$`, 'm'));
      // `status` afterwards prints the same fill (from the selected quote), not `?`.
      const status = exited(await cli(['--credentials', creds, 'status', rfq.id]), 0).stdout;
      assert.match(status, /^ {4}bought {4}0\.1 ETH \(perp\) of 0\.1$/m);
      assert.match(status, new RegExp(`^ {4}avg price ${formatAmount(price, 6).replace('.', '\\.')} USDC`, 'm'));
      assert.doesNotMatch(status, /\?/);
      const info = new InfoClient({ transport: new HttpTransport({ apiUrl: sim.url }) });
      assert.equal(await info.maxBuilderFee({ user: account.address, builder: BUILDER }), 20, 'the main wallet approved the rate');
      const position = (await info.clearinghouseState({ user: account.address })).assetPositions.find((p) => p.position.coin === 'ETH');
      assert.equal(position?.position.szi, '0.1', 'the taker holds the position at the venue');
    });

    it('sell --json with the demo taker key of the data directory: the fill from the executed quote', async () => {
      const { key, account } = await venueAccount();
      const taker = new RfqClient(h.url);
      await taker.signIn(account);
      const { accessKey, secret } = taker.credentials!;
      const dataDir = path.join(scratch, 'data');
      await mkdir(dataDir, { recursive: true });
      await writeFile(path.join(dataDir, 'demo-taker-key'), `${key}\n`);
      await writeFile(path.join(dataDir, 'demo-taker-credential.json'), JSON.stringify({ accessKey, secret, expiresAt: Date.now() + 3600_000 }));
      const env = { RFQ_ACCESS_KEY: accessKey, RFQ_SECRET: secret, RFQ_DATA_DIR: dataDir, RFQ_CREDENTIALS: path.join(scratch, 'none.json') };
      const running = cli(['--json', 'sell', '0.1', 'ETH-USDC-PERP', '--window', '3s'], env);
      const { rfq, quote, price } = await quoteWhenOpen('SELL', '0.1');
      const result = json(exited(await running, 0));
      assert.equal(result.rfq.id, rfq.id);
      assert.equal(result.rfq.status, 'SETTLED');
      assert.equal(result.rfq.selectedQuoteId, quote.quoteId);
      assert.deepEqual(result.perpFill, { quoteId: quote.quoteId, perpFilledSize: '0.1', perpFillAvgPx: formatAmount(price, 6) });
    });

    it('without a wallet key: NO_WALLET_KEY, exit 2, no RFQ sent', async () => {
      const { account } = await venueAccount();
      const taker = new RfqClient(h.url);
      await taker.signIn(account);
      const { accessKey, secret } = taker.credentials!;
      const env = { RFQ_ACCESS_KEY: accessKey, RFQ_SECRET: secret, RFQ_DATA_DIR: path.join(scratch, 'empty'), RFQ_CREDENTIALS: path.join(scratch, 'none.json') };
      const stderr = failed(await cli(['buy', '0.1', 'ETH-USDC-PERP'], env), 2, 'NO_WALLET_KEY');
      assert.match(stderr, /login --private-key/);
      assert.equal((await taker.listRfqs()).items.length, 0, 'nothing was submitted');
      failed(await cli(['buy', '0.1', 'ETH-USDC-PERP', '--private-key', '0x12'], env), 2, 'NO_WALLET_KEY');
    });
  });
}
