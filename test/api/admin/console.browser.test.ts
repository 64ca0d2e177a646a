/**
 * The operator console in a real headless Chromium against a real node on a devnet (nothing
 * mocked): sign in, approve and reject withdrawals (checked on-chain), register a maker and see
 * it quote, lift its suspension after a lapsed settlement, see its scorecard (as the API answers it,
 * over a chosen window) and its dead man's switch armed and disarmed through the maker API, watch an
 * RFQ go PENDING -> SETTLED without a reload, survive a node restart, post an
 * adjustment, see the invariants turn red when custody is robbed behind the ledger's back, and
 * resolve an UNRESOLVED withdrawal (its lost transaction shown on the custody page). With the
 * venue simulator beside the devnet, a perp trade (the reference maker quoting, a taker through
 * the client library) shows on the perp executions page, and the protection it trips on the maker
 * shows on the makers page with the maker's live session. A deposit quarantined by the chain
 * follower is replayed from the anomalies page once its cause is gone (credited exactly once, after
 * a failed replay that changed nothing), and a forged settlement is marked handled.
 * Every page is screenshotted into .rfq-test-data/console-screenshots/ (docs/images/ holds a
 * few of them for the operator guide).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { parseUnits, type Address } from 'viem';
import { testTokenAbi } from '../../../src/chain/artifacts/index.ts';
import { connectSigner } from '../../../src/chain/clients.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { generateSecretKey } from '../../../src/runtime/node.ts';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';
import { chainMaker, fundedTaker, relay, until, winningQuote, type ChainMaker } from '../../helpers/settlement.ts';
import { depositOnChain, requestWithdrawal, waitFor, wallet, withdrawal } from '../../chain/funds/helpers.ts';
import { deployForger, forgeRfqSettled } from '../../chain/helpers/forger.ts';
import { quoteHash } from '../../../src/chain/permit.ts';
import { chromiumMissing, launchBrowser, type Browser } from '../../helpers/browser.ts';
import { CustodyBroadcaster } from '../../../src/chain/custody/custody-broadcaster.ts';
import pino from 'pino';
import { startVenueSim, type VenueSim } from '../../../sim/venue/index.ts';
import type { ReferenceMaker } from '../../../examples/maker/maker.ts';
import { PERP, listPerpInstrument, perpTakerUser, perpTrade, startPerpMaker, venueOption } from '../../helpers/perp-trade.ts';

const SHOTS = join(process.cwd(), '.rfq-test-data', 'console-screenshots');
const USDC = (n: string) => parseUnits(n, 6);
const BUILDER = '0x00000000000000000000000000000000000000b6' as const;
/** The perp maker's protection never resets by itself during the run. */
const NO_RESET_MS = 600_000;
const skip = chromiumMissing();
if (skip) console.log(`# ${skip}`);

// One store is enough for the browser (the console sees only HTTP; the admin routes it uses are
// tested on both stores in console-reads.test.ts): PostgreSQL when there is one (it starts much
// faster than PGlite), else PGlite. That keeps this file near two minutes.
for (const backend of backends().slice(-1)) {
  describe(`operator console in Chromium [${backend}]`, { skip: skip ?? false }, () => {
    let chain: TestChain;
    let h: Harness;
    let database: TestDatabase;
    let pgliteDir: string | null = null;
    const secretKey = generateSecretKey();
    let browser: Browser;
    let maker: ChainMaker;
    /** The quote settled on chain by the maker registered from the page. */
    let settledQuoteId = '';
    let sim: VenueSim;
    let perpMaker: ReferenceMaker | undefined;
    const nodeOptions = () => ({ database, secretKey, chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, venue: venueOption(sim.url, BUILDER), logLevel: 'fatal' as const });
    const shot = (name: string) => browser.page.screenshot({ path: join(SHOTS, `${backend}-${name}.png`), fullPage: true });
    /**
     * A poll that met the node while it closed is answered 503 (draining, by design) or, when it
     * was in flight as the node's sockets closed, reset (net::ERR_CONNECTION_RESET, seen in CI):
     * neither is an error of the page. Called only right after a deliberate restart.
     */
    const forgiveDraining = () => {
      const kept = browser.errors.filter((e) => !/status of 503|net::ERR_CONNECTION_RESET/.test(e));
      browser.errors.splice(0, browser.errors.length, ...kept);
    };
    const open = async (path: string) => {
      await browser.page.evaluate(`location.hash = ${JSON.stringify(`#/${path}`)}`);
      await browser.page.locator('main h1').waitFor();
    };

    before(async () => {
      mkdirSync(SHOTS, { recursive: true });
      chain = await startTestChain();
      sim = await startVenueSim({ port: 0 });
      // A PGlite directory (not memory) so the node can be restarted on the same data.
      if (backend === 'pglite') {
        const dir = mkdtempSync(join(tmpdir(), 'rfq-console-pglite-'));
        pgliteDir = dir;
        database = { location: { kind: 'pglite', dataDir: dir }, drop: async () => undefined };
      } else {
        database = await createTestDatabase(backend);
      }
      h = await startHarness(backend, nodeOptions());
      await listPerpInstrument(h);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await perpMaker?.stop();
      await h?.close();
      await sim?.stop();
      await database?.drop();
      if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
      await chain?.stop();
    });

    it('refuses a wrong token plainly, then signs in with the operator token', async () => {
      const { page } = browser;
      await page.goto(`${h.url}/console`);
      await page.getByLabel('Operator token').fill('not-the-operator-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.match((await alert.textContent())!, /ADMIN_UNAUTHORIZED: wrong operator token/);
      await shot('signin');
      await page.getByLabel('Operator token').fill(ADMIN_TOKEN);
      await page.getByLabel('Operator token').press('Enter');
      await page.getByRole('heading', { name: 'RFQs and quotes' }).waitFor();
      assert.equal(await page.evaluate(() => sessionStorage.getItem('rfq-operator-token')), ADMIN_TOKEN);
    });

    it('approves one withdrawal (tokens arrive on-chain) and rejects another with a reason, by keyboard', async () => {
      const { page } = browser;
      const user = await wallet(h, chain);
      await depositOnChain(chain, user.account, 'USDC', USDC('100'));
      await waitFor('deposit credited', () => user.client.balances(), (b) => b.balances.some((x) => x.token === 'USDC' && x.available === '100'));
      const approveMe = await requestWithdrawal(user.client, { token: 'USDC', amount: '40' });
      const rejectMe = await requestWithdrawal(user.client, { token: 'USDC', amount: '15' });

      await open('withdrawals');
      await page.locator(`tr[data-withdrawal="${rejectMe.withdrawalId}"][data-status="PENDING"]`).waitFor();
      await shot('withdrawals');
      await page.getByRole('button', { name: `Approve ${approveMe.withdrawalId}` }).click();
      const dialog = page.getByRole('dialog');
      assert.match((await dialog.textContent())!, /Send 40 USDC from custody/);
      await dialog.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('status').filter({ hasText: `Withdrawal ${approveMe.withdrawalId} approved` }).waitFor();
      await waitFor('tokens on-chain', () => chain.balanceOf('USDC', user.account.address), (raw) => raw === USDC('40'));

      // Keyboard only: focus the button, Enter opens the dialog (focus on the reason), Enter submits.
      await page.getByRole('button', { name: `Reject ${rejectMe.withdrawalId}` }).focus();
      await page.keyboard.press('Enter');
      await page.getByLabel('Reason (shown to the user)').waitFor();
      await page.keyboard.type('address under review');
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: `Withdrawal ${rejectMe.withdrawalId} rejected: FAILED (address under review)` }).waitFor();
      const rejected = await withdrawal(user.client, rejectMe.withdrawalId);
      assert.deepEqual([rejected.status, rejected.failureReason], ['FAILED', 'address under review']);
      await waitFor('approved one COMPLETED', () => withdrawal(user.client, approveMe.withdrawalId), (w) => w.status === 'COMPLETED');
      const usdc = (await user.client.balances()).balances.find((b) => b.token === 'USDC');
      assert.deepEqual([usdc?.available, usdc?.locked], ['60', '0']);
      assert.equal(await chain.balanceOf('USDC', user.account.address), USDC('40'), 'the rejected withdrawal sent nothing');

      await page.getByLabel('Status').selectOption('');
      await page.locator(`tr[data-withdrawal="${approveMe.withdrawalId}"][data-status="COMPLETED"]`).waitFor({ timeout: 20_000 });
      await page.locator(`tr[data-withdrawal="${rejectMe.withdrawalId}"][data-status="FAILED"]`).waitFor();
      await shot('withdrawals-decided');
    });

    it('registers a maker, shows its quote, and follows the RFQ from PENDING to SETTLED without a reload', async () => {
      const { page } = browser;
      const key = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as const;
      const account = testAccount(key);
      await chain.fundGas(account.address);
      const wrapper = await chain.wrapperFor(account.address);
      await chain.mint('ETH', account.address, parseUnits('100', 18));
      await chain.approve(account, 'ETH', wrapper);

      await open('makers');
      await page.getByLabel('Maker address').fill(account.address);
      await page.getByLabel('Pairs').fill('ETH-USDC');
      await page.getByLabel('permit2').check();
      await page.getByLabel('Spender').fill(wrapper);
      await page.getByRole('button', { name: 'Register / update maker' }).click();
      await page.getByRole('status').filter({ hasText: `Maker ${account.address} saved` }).waitFor();
      await page.locator(`tr[data-maker="${account.address}"]`).filter({ hasText: 'ACTIVE' }).waitFor();
      await shot('makers');

      const client = new RfqClient(h.url);
      await client.signIn(account);
      maker = { account, client, wrapper, signer: await connectSigner(chain.rpcUrl, key), makerId: '' };
      const taker = await fundedTaker(h, chain, { USDC: '10000' });

      await open('rfqs');
      await page.evaluate('window.notReloaded = true');
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 15_000 });
      await page.locator(`tr[data-rfq="${rfqId}"][data-status="PENDING"]`).waitFor();
      const { quoteId } = await client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4300.25' } });
      const quoteRow = page.locator(`tr[data-quote="${quoteId}"]`);
      await quoteRow.waitFor();
      const quoteText = (await quoteRow.textContent())!;
      assert.ok(quoteText.includes(account.address), 'the maker is named');
      assert.ok(quoteText.includes('4300.25 USDC') && quoteText.includes('1.5 ETH'), `amounts exactly as the API gives them: ${quoteText}`);
      await shot('rfqs-pending');

      await taker.client.accept(rfqId, { quoteId });
      await relay(chain, maker, await winningQuote(maker, quoteId));
      settledQuoteId = quoteId;
      await page.locator(`tr[data-rfq="${rfqId}"][data-status="SETTLED"]`).waitFor({ timeout: 30_000 });
      assert.equal(await page.evaluate('window.notReloaded'), true, 'updated in place');
      // Times: the operator's zone shown, UTC on hover.
      const created = page.locator(`tr[data-rfq="${rfqId}"] time`).first();
      assert.match((await created.getAttribute('title'))!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{3})? UTC$/);
      assert.match((await created.textContent())!, /CET|CEST|GMT\+1|GMT\+2/);
      await shot('rfqs');
    });

    it("shows a sweep's legs on the RFQ page, each settling on its own with its transaction", async () => {
      const { page } = browser;
      const [a, b] = [await chainMaker(h, chain), await chainMaker(h, chain)];
      const taker = await fundedTaker(h, chain, { USDC: '10000' });
      await open('rfqs');
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', fill: 'SWEEP', windowMs: 15_000 });
      const quote = (amount: string, usdc: string) => ({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount }, makerReceives: { token: 'USDC', amount: usdc } });
      const qa = (await a.client.submitQuote(quote('1', '2990'))).quoteId;
      const qb = (await b.client.submitQuote(quote('0.5', '1496'))).quoteId;
      assert.deepEqual((await taker.client.acceptSweep(rfqId, { sweep: true })).quoteIds, [qa, qb]);
      const legA = page.locator(`tr[data-leg="${qa}"]`);
      await legA.filter({ hasText: 'SELECTED' }).waitFor();
      assert.ok((await page.locator(`tr[data-rfq="${rfqId}"]`).textContent())!.includes('sweep'), 'the RFQ row says it is a sweep');
      const receipts = [await relay(chain, a, await winningQuote(a, qa)), await relay(chain, b, await winningQuote(b, qb))];
      await page.locator(`tr[data-rfq="${rfqId}"][data-status="SETTLED"]`).waitFor({ timeout: 30_000 });
      for (const [id, receipt, base, usdc] of [[qa, receipts[0]!, '1 ETH', '2990 USDC'], [qb, receipts[1]!, '0.5 ETH', '1496 USDC']] as const) {
        const leg = page.locator(`tr[data-leg="${id}"]`);
        await leg.filter({ hasText: 'SETTLED' }).waitFor();
        const text = (await leg.textContent())!;
        assert.ok(text.includes(base) && text.includes(usdc), `the leg's amounts as the API gives them: ${text}`);
        assert.equal(await leg.locator('code.id').last().getAttribute('title'), receipt.transactionHash);
        // Both legs' quotes are marked selected in the quotes table.
        assert.equal(await page.locator(`tr[data-quote="${id}"]`).getAttribute('class'), 'selected');
      }
      await shot('rfqs-sweep');
    });

    it("shows a suspended maker's failures and lifts the suspension", async () => {
      const { page } = browser;
      await h.admin.putSettings({ settlementHeadroomSecs: 1, makerFailureThreshold: 1 });
      try {
        // The maker wins and lets the settlement lapse: one failure, suspended.
        const taker = await fundedTaker(h, chain, { USDC: '5000' });
        const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 1000 });
        const { quoteId } = await maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4300' } });
        await taker.client.accept(rfqId, { quoteId });
        await until(() => taker.client.getRfq(rfqId), (r) => r.status === 'FAILED', 30_000);
      } finally {
        await h.admin.putSettings({ settlementHeadroomSecs: 60, makerFailureThreshold: 3 });
      }
      const address = maker.account.address;
      await open('makers');
      await page.locator(`tr[data-maker="${address}"]`).filter({ hasText: 'SUSPENDED' }).waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: `Failures of ${address}` }).click();
      await page.getByRole('heading', { name: `Failures of ${address}` }).waitFor();
      assert.match((await page.locator('section.failures').textContent())!, /Suspended 1 time\(s\)/);
      await page.locator('section.failures tbody tr').first().waitFor();
      await shot('makers-suspended');
      await page.getByRole('button', { name: `Lift suspension of ${address}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Lift suspension' }).click();
      await page.getByRole('status').filter({ hasText: `Suspension of ${address} lifted` }).waitFor();
      await page.locator(`tr[data-maker="${address}"]`).filter({ hasText: 'ACTIVE' }).waitFor();
      const view = (await h.admin.listMakers()).makers.find((m) => m['address'] === address) as { suspendedUntil: number | null; suspensionCount: number };
      assert.deepEqual([view.suspendedUntil, view.suspensionCount], [null, 1]);
    });

    it("shows a maker's scorecard over the chosen window as the API answers it, and its dead man's switch armed and disarmed", async () => {
      const { page } = browser;
      const address = maker.account.address;
      // The maker above quoted twice, won both, settled one and let the other lapse (a fade).
      const { firesAt } = await maker.client.cancelAllAfter(600_000);
      try {
        await open('makers');
        await page.getByRole('button', { name: `Details of ${address}` }).click();
        const protection = page.getByRole('region', { name: `Protection of ${address}` });
        const armed = protection.locator('.dead-mans-switch[data-armed="true"]');
        await armed.waitFor();
        assert.match((await armed.textContent())!, /ARMED/);
        assert.equal(await armed.locator('time').getAttribute('datetime'), new Date(firesAt!).toISOString());
        const view = await h.admin.call<{ cancelAllAfter: { firesAt: number | null } }>('GET', `/makers/${address}`);
        assert.equal(view.cancelAllAfter.firesAt, firesAt, 'the page shows what the admin read says');

        const section = page.getByRole('region', { name: `Scorecard of ${address}` });
        await section.getByLabel('Window', { exact: true }).selectOption('3600');
        await page.locator('section.scorecard[data-window-secs="3600"]').waitFor();
        type Card = { rfqsSeen: number; rfqsQuoted: number; firstQuoteMs: { p50: number | null; p99: number | null }; wins: number; lostByBps: { median: number | null }; settled: number; failures: number; fades: number; lateRelays: number; moves: Array<{ quoteId: string; kind: string; delayMs: number; marketMoveBps: number | null }> };
        const card = await h.admin.call<Card>('GET', `/makers/${address}/scorecard`, undefined, { windowSecs: '3600' });
        assert.ok(card.rfqsQuoted >= 2 && card.wins >= 2 && card.settled >= 1 && card.fades >= 1, JSON.stringify(card));
        const dash = (v: number | null, unit: string) => (v === null ? '—' : `${v}${unit}`);
        const expected = {
          rfqsSeen: String(card.rfqsSeen), rfqsQuoted: String(card.rfqsQuoted), firstQuoteP50: dash(card.firstQuoteMs.p50, ' ms'), firstQuoteP99: dash(card.firstQuoteMs.p99, ' ms'),
          wins: String(card.wins), lostByMedian: dash(card.lostByBps.median, ' bp'), settled: String(card.settled), failures: String(card.failures), fades: String(card.fades), lateRelays: String(card.lateRelays),
        };
        const shown = Object.fromEntries(await Promise.all(Object.keys(expected).map(async (key) => [key, await section.locator(`td[data-field="${key}"]`).textContent()])));
        assert.deepEqual(shown, expected);
        const moves = section.locator('table.moves tbody tr[data-quote]');
        assert.equal(await moves.count(), card.moves.length);
        const fade = card.moves.find((m) => m.kind === 'fade')!;
        const fadeRow = section.locator(`table.moves tr[data-quote="${fade.quoteId}"]`);
        assert.deepEqual(await fadeRow.locator('td').allTextContents(), [await fadeRow.locator('code').textContent(), 'fade', `${fade.delayMs} ms`, fade.marketMoveBps === null ? '—' : `${fade.marketMoveBps > 0 ? '+' : ''}${fade.marketMoveBps} bp`]);
        assert.equal(await fadeRow.locator('code').getAttribute('title'), fade.quoteId);
        await shot('makers-scorecard');

        // Disarmed through the maker API: the page shows it without a click.
        await maker.client.cancelAllAfter(0);
        await protection.locator('.dead-mans-switch[data-armed="false"]').filter({ hasText: 'DISARMED' }).waitFor({ timeout: 15_000 });
      } finally {
        await maker.client.cancelAllAfter(0);
      }
      assert.deepEqual(browser.errors, []);
    });

    it("shows a perp trade's execution, and the maker's protection it tripped with the maker's live session", async () => {
      const { page } = browser;
      perpMaker = await startPerpMaker(h, sim.url, { protection: { windowMs: 600_000, maxSelectedQuotes: 1 } }, { protectionCoolDownMs: NO_RESET_MS });
      const user = await perpTakerUser(h, sim.url, BUILDER);
      const { rfq } = await perpTrade(user, 'BUY');
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));

      await open('perp');
      const row = page.locator(`tr[data-rfq="${rfq.id}"][data-phase="done"]`);
      await row.waitFor({ timeout: 15_000 });
      const text = (await row.textContent())!;
      assert.ok(text.includes(PERP) && text.includes(user.account.address) && text.includes('SETTLED'), text);
      assert.match(text, /sent /, 'the taker order was sent');
      await row.locator('summary').click();
      assert.match((await row.locator('ol.calls').textContent())!, /takerOrder/);
      await shot('perp');
      await page.getByLabel('Phase', { exact: true }).selectOption('refused');
      await page.locator('table.perp').filter({ hasText: 'No perp executions.' }).waitFor();
      await page.getByLabel('Phase', { exact: true }).selectOption('done');
      await row.waitFor();

      await open('makers');
      const address = perpMaker.address;
      await page.getByRole('button', { name: `Details of ${address}` }).click();
      const section = page.getByRole('region', { name: `Protection of ${address}` });
      const tripped = section.locator(`tr[data-instrument="${PERP}"][data-tripped="true"]`);
      await tripped.waitFor({ timeout: 15_000 });
      assert.match((await tripped.textContent())!, /TRIPPED.*maxSelectedQuotes/);
      const session = section.locator('table.sessions tbody tr[data-session]');
      await session.waitFor();
      assert.match((await session.textContent())!, /yes/, 'the reference maker holds cancel on disconnect');
      await shot('makers-protection');
      const view = await h.admin.call<{ protection: Array<{ triggeredAt: number | null }> }>('GET', `/makers/${address}`);
      assert.notEqual(view.protection[0]?.triggeredAt, null, 'the page shows what the API says');

      // The maker stops: its session ends, and the page shows it without a click.
      await perpMaker.stop();
      await section.locator('table.sessions').filter({ hasText: 'No live sessions.' }).waitFor({ timeout: 15_000 });
      assert.deepEqual(browser.errors, []);
    });

    it('replays a quarantined deposit once its cause is gone (credited exactly once) and marks a forged settlement handled', async () => {
      const { page } = browser;
      const db = h.node.store.db;
      // A deposit whose crediting keeps failing (the cause: a store trigger refusing it) is
      // quarantined by the chain follower after its retries; the operator replays it from the page.
      const user = await wallet(h, chain);
      await sql`create function console_refuse_credit() returns trigger language plpgsql as $$ begin raise exception 'ledger unavailable for %', new.from_address; end $$`.execute(db);
      await sql`create trigger console_refuse_credit before insert or update on deposits for each row when (new.status = 'COMPLETED' and new.from_address = ${sql.lit(user.account.address)}) execute function console_refuse_credit()`.execute(db);
      const depositTx = (await depositOnChain(chain, user.account, 'USDC', USDC('7'))).toLowerCase();
      // A forged RfqSettled (right quote, wrong emitter) naming the trade settled above: a MISMATCH,
      // not a quarantined log, so it can only be marked handled.
      const forgedTx = (await forgeRfqSettled(chain, await deployForger(chain), {
        quoteHash: quoteHash(settledQuoteId), maker: maker.account.address,
        payToken: chain.token('USDC') as Address, payAmount: USDC('4300.25'), deliverToken: chain.token('ETH') as Address, deliverAmount: parseUnits('1.5', 18),
      })).toLowerCase();
      type Anomaly = { txHash: string; logIndex: number; kind: string; resolvedAt: number | null; resolution: string | null };
      const anomaly = async (txHash: string) => (await h.admin.call<{ anomalies: Anomaly[] }>('GET', '/settlement-anomalies')).anomalies.find((a) => a.txHash === txHash);
      const quarantined = (await waitFor('the deposit quarantined', () => anomaly(depositTx), (a) => a !== undefined))!;
      const forged = (await waitFor('the forged settlement recorded', () => anomaly(forgedTx), (a) => a !== undefined))!;
      assert.deepEqual([quarantined.kind, forged.kind], ['HANDLER_FAILED', 'MISMATCH']);
      const credits = async () => (await db.selectFrom('ledger_movements').select('movement_id').where('reference', '=', `${depositTx}:${quarantined.logIndex}`).execute()).length;
      const postings = async () => (await sql<{ n: number }>`select count(*)::int as n from ledger_postings`.execute(db)).rows[0]!.n;

      await open('anomalies');
      const replay = page.getByRole('button', { name: `Replay ${depositTx} #${quarantined.logIndex}` });
      await replay.waitFor({ timeout: 15_000 });
      assert.equal(await page.getByRole('button', { name: `Replay ${forgedTx} #${forged.logIndex}` }).count(), 0, 'a mismatch offers no replay');
      await shot('anomalies-open');
      // The cause is still there: the replay fails, the page says why, nothing changes.
      await replay.click();
      await page.getByRole('dialog').getByRole('button', { name: 'Replay' }).click();
      await page.getByRole('alert').filter({ hasText: 'ANOMALY_REPLAY_FAILED' }).waitFor();
      assert.equal(await credits(), 0);
      assert.equal((await anomaly(depositTx))!.resolvedAt, null);

      await sql`drop trigger console_refuse_credit on deposits`.execute(db);
      await sql`drop function console_refuse_credit()`.execute(db);
      await replay.click();
      await page.getByRole('dialog').getByRole('button', { name: 'Replay' }).click();
      await page.getByRole('status').filter({ hasText: `Log ${quarantined.logIndex} of ${depositTx}: REPLAYED.` }).waitFor();
      await replay.waitFor({ state: 'detached' });
      assert.equal(await credits(), 1, 'credited exactly once');
      assert.equal((await user.client.balances()).balances.find((b) => b.token === 'USDC')?.available, '7');
      assert.equal((await anomaly(depositTx))!.resolution, 'REPLAYED');

      const before = await postings();
      await page.getByRole('button', { name: `Mark ${forgedTx} #${forged.logIndex} handled` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Mark handled' }).click();
      await page.getByRole('status').filter({ hasText: `Log ${forged.logIndex}: HANDLED` }).waitFor();
      await page.getByRole('button', { name: `Mark ${forgedTx} #${forged.logIndex} handled` }).waitFor({ state: 'detached' });
      assert.match((await anomaly(forgedTx))!.resolution ?? '', /^HANDLED/);
      assert.equal(await postings(), before, 'marking handled moves no money');
      assert.equal(await credits(), 1);
      await shot('anomalies-resolved');
      assert.deepEqual((await h.admin.invariants()).violations, []);
      assert.deepEqual(browser.errors, []);
    });

    it('shows every other page without an error', async () => {
      for (const path of ['custody', 'deposits', 'anomalies', 'settings', 'reference', 'balances']) {
        await open(path);
        await browser.page.locator('.data[aria-busy="false"]').waitFor({ state: 'attached' });
        await shot(path);
      }
      await open('settings');
      await browser.page.getByLabel('settlementHeadroomSecs').fill('90');
      await browser.page.getByRole('button', { name: 'Save settings' }).click();
      await browser.page.getByRole('status').filter({ hasText: 'settlementHeadroomSecs=90' }).waitFor();
      assert.equal((await h.admin.call<{ settlementHeadroomSecs: number }>('GET', '/settings')).settlementHeadroomSecs, 90);
      await browser.page.getByLabel('maxWindowMs').fill('-5');
      await browser.page.getByRole('button', { name: 'Save settings' }).click();
      assert.equal((await h.admin.call<{ maxWindowMs: number }>('GET', '/settings')).maxWindowMs, 30000, 'an invalid form is not sent');
      assert.deepEqual(browser.errors, []);
    });

    it('survives a node restart: says the node is away, then carries on by itself', async () => {
      const { page } = browser;
      await open('rfqs');
      const port = Number(new URL(h.url).port);
      await h.close();
      await page.getByText('The node is not answering').waitFor({ timeout: 15_000 });
      await shot('node-away');
      h = await startHarness(backend, { ...nodeOptions(), port, seed: false });
      await page.getByText('The node is not answering').waitFor({ state: 'hidden', timeout: 20_000 });
      const taker = await h.newUser();
      await h.fund(taker.account.address, { USDC: '100' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'BUY', baseQty: '0.01', windowMs: 5000 });
      await page.locator(`tr[data-rfq="${rfqId}"]`).waitFor({ timeout: 15_000 });
      forgiveDraining();
    });

    it('posts an adjustment, and shows the invariants red once custody is robbed behind the ledger', async () => {
      const { page } = browser;
      const stranger = testAccount();
      await open('balances');
      await page.getByLabel('Account address').fill(stranger.address);
      await page.getByLabel('Token', { exact: true }).first().selectOption('USDC');
      await page.getByLabel('Amount (signed, token units)').fill('-1');
      await page.getByLabel('Memo').fill('console test');
      await page.getByRole('button', { name: 'Post adjustment' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Post adjustment' }).click();
      await page.getByRole('alert').filter({ hasText: 'INSUFFICIENT_BALANCE' }).waitFor();
      await page.getByLabel('Amount (signed, token units)').fill('250.000001');
      await page.getByRole('button', { name: 'Post adjustment' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Post adjustment' }).click();
      await page.getByRole('status').filter({ hasText: 'USDC available 250.000001' }).waitFor();

      await open('invariants');
      await page.locator('.verdict[data-ok="true"]').waitFor({ timeout: 30_000 });
      await shot('invariants-ok');
      // Custody pays out a token behind the service's back: the ledger still holds it.
      const custody = await connectSigner(chain.rpcUrl, chain.stack.settings.custodyKey);
      const hash = await custody.walletClient.writeContract({ address: chain.token('USDC') as Address, abi: testTokenAbi, functionName: 'transfer', args: [stranger.address, USDC('1')] });
      await custody.publicClient.waitForTransactionReceipt({ hash });
      await page.locator('.verdict[data-ok="false"]').waitFor({ timeout: 30_000 });
      const violations = await page.locator('table.violations').textContent();
      assert.match(violations!, /custody/i);
      await shot('invariants-violated');
      await until(() => h.admin.invariants(), (r) => !r.ok);
      assert.deepEqual(browser.errors, []);
    });

    it('resolves an UNRESOLVED withdrawal FAILED after seeing its lost transaction on the custody page', async () => {
      const { page } = browser;
      // The node again, its broadcaster driven by hand, so custody's nonce can be taken first.
      const port = Number(new URL(h.url).port);
      await h.close();
      h = await startHarness(backend, { ...nodeOptions(), port, seed: false, workers: new Set(['auctions', 'settlement', 'dispatch']) });
      forgiveDraining();
      const user = await wallet(h, chain);
      await depositOnChain(chain, user.account, 'USDC', USDC('8'));
      await waitFor('deposit credited', () => user.client.balances(), (b) => b.balances.some((x) => x.token === 'USDC' && x.available === '8'));
      const { withdrawalId } = await requestWithdrawal(user.client, { token: 'USDC', amount: '8' });
      await h.admin.call('POST', `/withdrawals/${withdrawalId}/approve`);
      const broadcaster = new CustodyBroadcaster({ deps: h.node.context.service, chain: h.node.context.chain!, logger: pino({ level: 'silent' }) });
      await broadcaster.signQueued();
      const signed = await h.node.store.db.selectFrom('custody_transfers').selectAll().where('owner_id', '=', withdrawalId).executeTakeFirstOrThrow();
      const custody = await connectSigner(chain.rpcUrl, chain.stack.settings.custodyKey);
      const other = await custody.walletClient.sendTransaction({ to: custody.account.address, value: 0n, nonce: signed.nonce! });
      await custody.publicClient.waitForTransactionReceipt({ hash: other });
      await broadcaster.sendSigned();
      await broadcaster.confirmSent();
      assert.equal((await withdrawal(user.client, withdrawalId)).status, 'UNRESOLVED');

      await open('custody');
      const transfer = page.locator(`tr[data-owner="${withdrawalId}"]`);
      await transfer.waitFor({ timeout: 15_000 });
      assert.match((await transfer.textContent())!, /original/, 'the signed attempt is listed');
      await shot('custody');

      await open('withdrawals');
      await page.getByLabel('Status').selectOption('UNRESOLVED');
      await page.locator(`tr[data-withdrawal="${withdrawalId}"][data-status="UNRESOLVED"]`).waitFor();
      await page.getByRole('button', { name: `Resolve ${withdrawalId}` }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Outcome').selectOption('FAILED');
      await shot('withdrawals-resolve');
      await dialog.getByRole('button', { name: 'Resolve' }).click();
      await page.getByRole('status').filter({ hasText: `Withdrawal ${withdrawalId} resolved: FAILED.` }).waitFor();
      assert.equal((await withdrawal(user.client, withdrawalId)).status, 'FAILED');
      const usdc = (await user.client.balances()).balances.find((b) => b.token === 'USDC');
      assert.deepEqual([usdc?.available, usdc?.locked], ['8', '0'], 'the funds are released');
      assert.equal(await chain.balanceOf('USDC', user.account.address), 0n, 'nothing was paid on-chain');
      assert.deepEqual(browser.errors, []);
    });
  });
}
