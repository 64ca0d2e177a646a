/**
 * The taker CLI (`npm run rfq -- ...`, src/runtime/rfq-cli.ts) run as a child process against a
 * harness node, with test makers quoting over REST: login (wallet key and key pair), the
 * remembered credential, balances / instruments / ledger, a buy that shows quotes live (with a
 * re-price) and accepts the best, an autoAccept sell over REST polling with `--json`, accepting a
 * chosen quote, status, and error paths. Settlement is not built on this branch, so an accepted
 * RFQ ends FAILED (SETTLEMENT_FAILED) at its settlementDeadline: the CLI follows it there.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../helpers/backends.ts';
import { exited, failed, json, openRfq, runCli, type Run } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';

let scratch: string;

/** Runs the CLI with a clean environment (nothing inherited that could name a URL or key). */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runCli('src/runtime/rfq-cli.ts', args, scratch, env);
}

for (const backend of backends()) {
  describe(`taker CLI [${backend}]`, () => {
    let h: Harness;
    let wallet: ReturnType<typeof privateKeyToAccount>;
    let privateKey: `0x${string}`;
    let creds: string;
    let as: string[];
    before(async () => {
      h = await startHarness(backend, { logLevel: 'silent' });
      // Short headroom: an accepted RFQ (no settlement adapter yet) fails one second after its auction.
      await h.admin.putSettings({ settlementHeadroomSecs: 1 });
      scratch = await mkdtemp(path.join(tmpdir(), 'rfq-taker-cli-'));
      privateKey = generatePrivateKey();
      wallet = privateKeyToAccount(privateKey);
      creds = path.join(scratch, 'taker.json');
      as = ['--credentials', creds];
    });
    after(async () => {
      await h.close();
      await rm(scratch, { recursive: true, force: true });
    });

    it('--help names every command and the credential file; usage mistakes exit 2', async () => {
      const help = exited(await cli(['--help']), 0);
      for (const command of ['login', 'logout', 'balances', 'instruments', 'ledger', 'buy', 'sell', 'accept', 'status', 'cancel', '--json', '--auto', '--limit', '--sweep', '--min']) {
        assert.ok(help.stdout.includes(command), `usage mentions ${command}`);
      }
      assert.match(help.stdout, /RFQ_DATA_DIR, else \.\/\.rfq-data\/cli-credentials\.json/);
      assert.match(help.stdout, /RFQ_CREDENTIALS/);
      failed(await cli([]), 2, 'USAGE');
      failed(await cli(['frobnicate']), 2, 'USAGE');
      failed(await cli(['buy', '1']), 2, 'USAGE');
      failed(await cli(['buy', '1', 'ETH-USDC', '--window', 'soon']), 2, 'USAGE');
      failed(await cli(['balances', '--limit', '3']), 2, 'USAGE');
      // A BUY left to the auction needs a price cap: the message names the flag to add.
      assert.match(failed(await cli(['buy', '1', 'ETH-USDC', '--auto']), 2, 'USAGE'), /needs --limit X/);
      // A sweep's least fill needs the sweep, on a spot as on a perp.
      assert.match(failed(await cli(['buy', '1', 'ETH-USDC', '--min', '0.5']), 2, 'USAGE'), /needs --sweep/);
      assert.match(failed(await cli(['buy', '1', 'ETH-USDC-PERP', '--min', '0.5']), 2, 'USAGE'), /needs --sweep/);
      failed(await cli(['login', '--private-key', '0x1234']), 2, 'USAGE');
      assert.match(failed(await cli(['--url', h.url, 'balances'], { RFQ_CREDENTIALS: path.join(scratch, 'none.json') }), 2, 'NOT_LOGGED_IN'), /login/);
    });

    it('keeps the credential in RFQ_DATA_DIR when no file is named, beside the operator token', async () => {
      const dataDir = path.join(scratch, 'data');
      const login = json(exited(await cli(['--url', h.url, '--json', 'login', '--private-key', generatePrivateKey()], { RFQ_DATA_DIR: dataDir }), 0));
      assert.equal(login.credentialsFile, path.join(dataDir, 'cli-credentials.json'));
      exited(await cli(['balances'], { RFQ_DATA_DIR: dataDir }), 0);
    });

    it('logs in with a wallet key, remembers the credential (0600, URL included) and shows balances', async () => {
      const login = json(exited(await cli(['--url', h.url, ...as, '--json', 'login', '--private-key', privateKey]), 0));
      assert.equal(login.account, wallet.address);
      assert.equal(login.url, h.url);
      assert.equal(login.credentialsFile, creds);
      assert.ok(!('secret' in login), 'the secret is never printed');
      assert.equal((await stat(creds)).mode & 0o777, 0o600);
      const saved = JSON.parse(await readFile(creds, 'utf8'));
      assert.equal(saved.accessKey, login.accessKey);

      await h.fund(wallet.address, { USDC: '20000', ETH: '10' });
      // No --url: the saved one is used.
      const balances = json(exited(await cli([...as, '--json', 'balances']), 0));
      assert.deepEqual(balances.balances.map((b: { token: string; available: string }) => [b.token, b.available]).sort(), [['ETH', '10'], ['USDC', '20000']]);
      const table = exited(await cli([...as, 'balances']), 0).stdout;
      assert.match(table, /^TOKEN\s+RAIL\s+AVAILABLE\s+LOCKED\s+TOTAL$/m);
      assert.match(table, /^USDC\s+EVM\s+20000\s+0\s+20000$/m);

      const instruments = json(exited(await cli([...as, '--json', 'instruments']), 0));
      assert.ok(instruments.instruments.some((i: { instrumentId: string }) => i.instrumentId === 'ETH-USDC-SPOT'));
      const ledger = json(exited(await cli([...as, '--json', 'ledger', '--limit', '1']), 0));
      assert.equal(ledger.entries.length, 1);
      assert.equal(ledger.hasMore, true);
    });

    it("logs in with the embedded demo taker's key pair and records its address (the quickstart's ADDRESS)", async () => {
      const key = generatePrivateKey();
      const demo = new RfqClient(h.url);
      await demo.signIn(privateKeyToAccount(key));
      const { accessKey, secret } = demo.credentials!;
      // What `npm start` writes into a data directory moved with RFQ_DATA_DIR.
      const dataDir = path.join(scratch, 'moved-data');
      await mkdir(dataDir, { recursive: true });
      await writeFile(path.join(dataDir, 'demo-taker-key'), `${key}\n`);
      await writeFile(path.join(dataDir, 'demo-taker-credential.json'), JSON.stringify({ accessKey, secret }));
      exited(await cli(['--url', h.url, 'login', '--access-key', accessKey, '--secret', secret], { RFQ_DATA_DIR: dataDir }), 0);
      const saved = JSON.parse(await readFile(path.join(dataDir, 'cli-credentials.json'), 'utf8'));
      assert.equal(saved.account, privateKeyToAccount(key).address);
    });

    it('logs in with an existing key pair, refusing one that does not authenticate', async () => {
      const other = await h.newUser();
      const file = path.join(scratch, 'pair.json');
      const { accessKey, secret } = other.client.credentials!;
      exited(await cli(['--url', h.url, '--credentials', file, 'login', '--access-key', accessKey, '--secret', secret]), 0);
      assert.deepEqual(json(exited(await cli(['--credentials', file, '--json', 'balances']), 0)), { balances: [] });
      assert.equal(JSON.parse(await readFile(file, 'utf8')).account, undefined, 'a pasted pair names no account');
      const bad = await cli(['--url', h.url, '--credentials', path.join(scratch, 'bad.json'), '--json', 'login', '--access-key', accessKey, '--secret', Buffer.from('nope').toString('base64')]);
      failed(bad, 1, 'SIGNATURE_MISMATCH');
      assert.equal(json(bad).error.code, 'SIGNATURE_MISMATCH', '--json prints the error as the one document');
      await assert.rejects(stat(path.join(scratch, 'bad.json')), 'nothing saved');
      // logout revokes the key and forgets it.
      exited(await cli(['--credentials', file, 'logout']), 0);
      await assert.rejects(stat(file));
      await assert.rejects(other.client.listApiKeys(), /UNAUTHENTICATED/);
    });

    it('buy shows quotes live as they arrive and re-price, accepts the best, and follows to the end', async () => {
      const makerA = await h.newMaker();
      const makerB = await h.newMaker();
      const running = cli([...as, 'buy', '1.25', 'ETH-USDC', '--limit', '5000', '--window', '5s']);
      const rfq = await openRfq(makerA.client, (r) => r.baseQty === '1.25' && r.side === 'BUY');
      const leg = (price: string) => ({ rfqId: rfq.id, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1.25' }, makerReceives: { token: 'USDC', amount: price } });
      const a = await makerA.client.submitQuote(leg('3000'));
      const b = await makerB.client.submitQuote(leg('2950'));
      await makerA.client.submitQuote(leg('2900'));
      const run = exited(await running, 3);
      const out = run.stdout;
      assert.match(out, new RegExp(`^rfq ${rfq.id}: BUY 1.25 ETH-USDC-SPOT, limit 5000`, 'm'));
      assert.match(out, new RegExp(`^quote ${a.quoteId} v1: pay 3007.5 USDC \\(fee incl.\\), get 1.25 ETH  <- best$`, 'm'));
      assert.match(out, new RegExp(`^quote ${b.quoteId} v1: pay 2957.375 USDC \\(fee incl.\\), get 1.25 ETH  <- best$`, 'm'));
      assert.match(out, new RegExp(`^quote ${a.quoteId} v2 re-priced: pay 2907.25 USDC`, 'm'));
      assert.match(out, new RegExp(`^accepting ${a.quoteId} v2$`, 'm'));
      assert.match(out, new RegExp(`^status ${rfq.id} QUOTED$`, 'm'));
      assert.match(out, new RegExp(`^FAILED ${rfq.id}: SETTLEMENT_FAILED`, 'm'));
      assert.equal(run.stderr, '');
      assert.doesNotMatch(out, /WebSocket unavailable/, 'quotes came over the WebSocket');
      const status = json(exited(await cli([...as, '--json', 'status', rfq.id]), 0));
      assert.equal(status.rfq.status, 'FAILED');
      assert.deepEqual(status.quotes.map((q: { quoteId: string; status: string }) => [q.quoteId, q.status]).sort(), [[a.quoteId, 'FAILED'], [b.quoteId, 'NOT_SELECTED']].sort());
    });

    it('sell --auto --json over REST polling: one JSON document with the final RFQ and the quotes', async () => {
      const maker = await h.newMaker();
      const running = cli([...as, '--json', '--no-ws', 'sell', '0.75', 'ETH-USDC-SPOT', '--auto', '--limit', '1000', '--window', '2s']);
      const rfq = await openRfq(maker.client, (r) => r.side === 'SELL' && r.instrumentId === 'ETH-USDC-SPOT');
      const quote = await maker.client.submitQuote({ rfqId: rfq.id, instrumentId: 'ETH-USDC-SPOT', side: 'SELL', makerPays: { token: 'USDC', amount: '2200' }, makerReceives: { token: 'ETH', amount: rfq.baseQty } });
      const run = exited(await running, 3);
      assert.equal(run.stderr, '');
      const result = json(run);
      assert.deepEqual(Object.keys(result).sort(), ['accepted', 'quotes', 'rfq', 'transport']);
      assert.equal(result.transport, 'rest');
      assert.equal(result.accepted, null, 'the auction chose, not the CLI');
      assert.deepEqual([result.rfq.id, result.rfq.side, result.rfq.autoAccept, result.rfq.status, result.rfq.failureCode], [rfq.id, 'SELL', true, 'FAILED', 'SETTLEMENT_FAILED']);
      assert.deepEqual(result.quotes.map((q: { quoteId: string }) => q.quoteId), [quote.quoteId]);
    });

    it('accept takes a chosen quote of a live RFQ and follows it; status --follow reports the end', async () => {
      const taker = new RfqClient(h.url);
      await taker.signIn(wallet);
      const maker = await h.newMaker();
      const { rfqId } = await taker.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'BUY', baseQty: '0.1', windowMs: 3000 });
      const leg = (price: string) => ({ rfqId, instrumentId: 'BTC-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'BTC', amount: '0.1' }, makerReceives: { token: 'USDC', amount: price } });
      const chosen = await maker.client.submitQuote(leg('6000'));
      const result = json(exited(await cli([...as, '--json', 'accept', rfqId, '--quote', chosen.quoteId]), 3));
      assert.deepEqual(result.accepted, { quoteId: chosen.quoteId, version: 1 });
      assert.deepEqual([result.rfq.status, result.rfq.failureCode], ['FAILED', 'SETTLEMENT_FAILED']);
      const followed = exited(await cli([...as, 'status', rfqId, '--follow']), 3);
      assert.match(followed.stdout, new RegExp(`^status ${rfqId} FAILED`, 'm'));
      failed(await cli([...as, 'accept', rfqId, '--quote', 'qt_unknown']), 1, 'NOT_FOUND');
    });

    it('makers lists the disclosed aliases; buy --makers reaches only them, --exclude-makers keeps it from them', async () => {
      const named = await h.newMaker();
      const other = await h.newMaker();
      const alias = `cli-desk-${Date.now().toString(36)}`;
      await named.client.setProfile(alias);
      const listed = exited(await cli([...as, 'makers']), 0);
      assert.ok(listed.stdout.split('\n').includes(alias), listed.stdout);
      assert.ok(json(exited(await cli([...as, '--json', 'makers']), 0)).makers.some((m: { alias: string }) => m.alias === alias));

      const only = cli([...as, 'buy', '1.5', 'ETH-USDC', '--limit', '5000', '--window', '2s', '--no-accept', '--makers', alias]);
      const rfq = await openRfq(named.client, (r) => r.baseQty === '1.5' && r.side === 'BUY');
      assert.ok(!(await other.client.openRfqs({ limit: 100 })).items.some((r) => r.id === rfq.id), 'not reached: another maker');
      exited(await only, 3);
      const excluding = cli([...as, 'buy', '1.75', 'ETH-USDC', '--limit', '5000', '--window', '2s', '--no-accept', '--exclude-makers', alias]);
      const seen = await openRfq(other.client, (r) => r.baseQty === '1.75' && r.side === 'BUY');
      assert.ok(!(await named.client.openRfqs({ limit: 100 })).items.some((r) => r.id === seen.id), 'not reached: the excluded maker');
      exited(await excluding, 3);
      failed(await cli([...as, 'buy', '1', 'ETH-USDC', '--makers', alias, '--exclude-makers', alias]), 2, 'USAGE');
      failed(await cli([...as, 'buy', '1', 'ETH-USDC', '--limit', '5000', '--makers', 'no-such-desk']), 1, 'INVALID_REQUEST');
    });

    it('reports server refusals with their code, message and a non-zero exit', async () => {
      const below = await cli([...as, 'buy', '1', 'ETH-USDC-SPOT', '--limit', '5']);
      assert.match(failed(below, 1, 'BELOW_MIN_NOTIONAL'), /HTTP 400/);
      assert.match(below.stderr, /minQuoteNotional/);
      const unknown = await cli([...as, '--json', 'buy', '1', 'DOGE-USDC', '--limit', '50']);
      failed(unknown, 1, 'INSTRUMENT_NOT_FOUND');
      assert.deepEqual([json(unknown).error.code, json(unknown).error.status], ['INSTRUMENT_NOT_FOUND', 400]);
      failed(await cli([...as, 'status', 'rfq_nope']), 1, 'NOT_FOUND');
      failed(await cli([...as, 'sell', '1000', 'ETH-USDC', '--auto', '--window', '1s']), 1, 'INSUFFICIENT_BALANCE');
      // Unreachable names the URL it tried, where it came from, and how to change it.
      const down = await cli(['--url', 'http://127.0.0.1:9', ...as, '--json', 'balances']);
      assert.match(failed(down, 1, 'UNREACHABLE'), /http:\/\/127\.0\.0\.1:9 \(--url\).*--url or RFQ_URL/);
      assert.deepEqual(json(down).error.details, { url: 'http://127.0.0.1:9', from: '--url' });
      const saved = await cli([...as, 'balances'], { RFQ_URL: 'http://127.0.0.1:9' });
      assert.match(failed(saved, 1, 'UNREACHABLE'), /\(RFQ_URL\)/);
    });
  });
}
