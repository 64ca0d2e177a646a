/**
 * docs/maker-integration.md, permit2 section, followed as a maker in another language would: the
 * ABI is the guide's human-readable block, the quote body has exactly the guide's fields, and the
 * `settle(...)` call is built from the `quoteStatus` frame and `GET /v1/rfq/network` by the
 * guide's argument table alone (no project chain helper, no permit code). It must win and settle
 * on anvil. The guide's frame example must name exactly the fields of the real SELECTED frame.
 *
 * The perp section's maker program runs as written (`npm exec -- node perp-maker.ts`) against a
 * node whose venue is on testnet, as the embedded stack's is: it reads the network from
 * `GET /v1/rfq/network`, quotes, and the taker's accept settles. The guide's quote body and its
 * `GET /v1/rfq/network` example name exactly the fields the service uses and answers.
 *
 * One backend per run (PostgreSQL when TEST_DATABASE_URL is set, else PGlite), as the guides test.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createWalletClient, defineChain, http, keccak256, maxUint256, parseAbi, parseUnits, stringToHex, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../helpers/harness.ts';
import { startTestChain, type TestChain } from '../helpers/chain.ts';
import { rejects } from '../helpers/rejects.ts';
import { fundedTaker, rfqReaches } from '../helpers/settlement.ts';
import { openSession, subscribe, type Frame, type TestSocket } from '../ws/test-socket.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { PerpTaker } from '../../src/client/perp-taker.ts';
import { signMakerOrders, VenueNonces } from '../../src/client/perp-order.ts';
import type { Quote, Rfq } from '../../src/client/types.ts';
import { venueFaucetOf } from '../../src/runtime/embedded-venue.ts';
import { startVenueSim } from '../../sim/venue/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { keyPaths, parseBlocks } from './runnable-blocks.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const guideBlock = async (lang: string, attr: string) => {
  const found = parseBlocks(await readFile(path.join(ROOT, 'docs/maker-integration.md'), 'utf8')).filter((b) => b.lang === lang && b.attrs[attr]);
  assert.equal(found.length, 1, `one \`\`\`${lang} ${attr} block`);
  return found[0]!.body;
};
const BUILDER = '0x00000000000000000000000000000000000000b5' as const;
/** A JSON value's key paths with array positions folded (`tokens[].symbol`): a guide's example may list fewer items. */
const shape = (value: unknown) => [...new Set(keyPaths(value).map((p) => p.replace(/\.\d+(?=\.|$)/g, '[]')))];

/** Runs `command` in a directory that looks like the repository, as a reader in a second terminal. */
function run(command: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe('docs/maker-integration.md: a permit2 maker from the guide alone', () => {
  const backend = backends().at(-1)!;
  let chain: TestChain;
  let h: Harness;
  const sockets: TestSocket[] = [];
  before(async () => {
    chain = await startTestChain();
    h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, embedded: true, logLevel: 'silent' });
  });
  after(async () => {
    for (const socket of sockets) socket.close();
    await h?.close();
    await chain?.stop();
  });

  it('wins and settles: gas, faucet, factory wrapper, registration, sign-in after it, quote, settle from the frame', async () => {
    const blocks = parseBlocks(await readFile(path.join(ROOT, 'docs/maker-integration.md'), 'utf8'));
    const block = (lang: string, attr: string) => {
      const found = blocks.filter((b) => b.lang === lang && b.attrs[attr]);
      assert.equal(found.length, 1, `one \`\`\`${lang} ${attr} block`);
      return found[0]!.body;
    };
    const abi = parseAbi(block('text', 'abi').split('\n').filter(Boolean));
    const quoteShape = keyPaths(JSON.parse(block('json', 'permit2')));
    const frameShape = keyPaths(JSON.parse(block('json', 'quoteStatus')));

    const key = generatePrivateKey();
    const me = privateKeyToAccount(key);
    const client = new RfqClient(h.url);
    await client.signIn(me); // before registration: a taker's key
    const network = await client.network();
    assert.ok(network.rpcUrl, 'the embedded devnet publishes rpcUrl');
    const onChain = defineChain({ id: network.chainId, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [network.rpcUrl] } } });
    const reader = createPublicClient({ chain: onChain, transport: http(network.rpcUrl) });
    const wallet = createWalletClient({ account: me, chain: onChain, transport: http(network.rpcUrl) });
    const send = async (request: Parameters<typeof wallet.writeContract>[0]) => {
      const receipt = await reader.waitForTransactionReceipt({ hash: await wallet.writeContract(request) });
      assert.equal(receipt.status, 'success');
      return receipt;
    };
    const token = (symbol: string) => network.tokens.find((t) => t.symbol === symbol)!;
    const smallest = (leg: { token: string; amount: string }) => parseUnits(leg.amount, token(leg.token).decimals);

    // 1. Gas by anvil_setBalance on rpcUrl (the guide's request), tokens by the faucet.
    const rpc = await fetch(network.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [me.address, '0x8ac7230489e80000'] }) });
    assert.equal(((await rpc.json()) as { error?: unknown }).error, undefined);
    await h.admin.faucet({ address: me.address, token: 'ETH', amount: '10' });

    // 2. The wrapper through the factory, and the allowance for what we deliver.
    await send({ address: network.wrapperFactoryAddress as Address, abi, functionName: 'deploy', args: [me.address] });
    const wrapper = await reader.readContract({ address: network.wrapperFactoryAddress as Address, abi, functionName: 'wrapperOf', args: [me.address] }) as Address;
    await send({ address: token('ETH').address as Address, abi, functionName: 'approve', args: [wrapper, maxUint256] });

    // 3. Registration; 4. the key issued before it is not maker-scoped, a fresh sign-in is.
    await h.admin.putMaker(me.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['permit2'], spender: wrapper });
    const stale = await rejects(client.makerQuotes(), 403, 'MAKER_SCOPE_REQUIRED');
    assert.match(stale.message, /sign in again/);
    await client.signIn(me);
    const socket = await openSession(h.url, client, sockets);
    await subscribe(socket, { topic: 'quoteStatus' });
    await subscribe(socket, { topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });

    // 6. An RFQ arrives; 7. the quote body, exactly the guide's fields.
    const taker = await fundedTaker(h, chain, { USDC: '5000' });
    const created = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '0.5', quoteLimit: '2000', autoAccept: true, windowMs: 1500 });
    const rfq = await socket.next((f) => f.kind === 'rfq' && f.id === created.rfqId);
    const body = {
      rfqId: rfq.id as string,
      instrumentId: rfq.instrumentId as string,
      side: 'BUY' as const,
      makerPays: { token: 'ETH', amount: rfq.baseQty as string },
      makerReceives: { token: 'USDC', amount: '1500' },
    };
    assert.deepEqual(keyPaths(body), quoteShape);
    const quoted = await client.submitQuote(body);

    // 8. SELECTED: the settle call from the frame and the network's tokens, by the guide's table.
    const frame: Frame = await socket.next((f) => f.kind === 'quoteStatus' && f.quoteId === quoted.quoteId && f.status === 'SELECTED', 10_000);
    assert.deepEqual(keyPaths(frame), frameShape, 'the guide shows the fields of the real frame');
    assert.equal(frame.quoteHash, keccak256(stringToHex(quoted.quoteId)), 'quoteHash = keccak256(utf8(quoteId))');
    assert.equal(toHex(BigInt(frame.permit2Nonce as string), { size: 32 }), frame.quoteHash, 'permit2Nonce = quoteHash as a uint256');
    const pays = frame.makerPays as { token: string; amount: string };
    const receives = frame.makerReceives as { token: string; amount: string };
    const permit = {
      permitted: { token: token(receives.token).address as Address, amount: smallest(receives) },
      nonce: BigInt(frame.permit2Nonce as string),
      deadline: BigInt(frame.settlementDeadline as number),
    };
    const receipt = await send({
      address: frame.spender as Address,
      abi,
      functionName: 'settle',
      args: [permit, token(pays.token).address as Address, smallest(pays), frame.quoteHash as Hex, frame.permitSignature as Hex],
    });

    const settled = await socket.next((f) => f.kind === 'quoteStatus' && f.quoteId === quoted.quoteId && f.status === 'SETTLED', 20_000);
    assert.equal(settled.txHash, receipt.transactionHash);
    assert.equal((await rfqReaches(taker.client, created.rfqId, 'SETTLED')).status, 'SETTLED');
    assert.equal(await chain.balanceOf('USDC', me.address), parseUnits('1500', 6));
    // The taker's ledger: the trade's entries name their RFQ (additive rfqId), the funding does not.
    const entries = (await taker.client.ledger()).entries;
    assert.deepEqual(entries.filter((e) => e.rfqId === created.rfqId).map((e) => e.source).sort(), ['FEE', 'SETTLEMENT', 'SETTLEMENT']);
    assert.ok(entries.some((e) => e.source === 'ADJUSTMENT' && e.rfqId === undefined));
  });

  it('perps: the maker program quotes on the stack\'s own venue network (testnet) and the quote settles', async () => {
    const sim = await startVenueSim({ port: 0, config: { network: 'testnet' } });
    const venue = { url: sim.url, network: 'testnet' as const, builderAddress: BUILDER };
    const node = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, embedded: true, logLevel: 'silent', venue, embeddedVenue: { url: sim.url, faucet: venueFaucetOf(sim) } });
    const scratch = await mkdtemp(path.join(tmpdir(), 'rfq-perp-maker-'));
    try {
      await node.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
      const faucet = venueFaucetOf(sim);
      const key = generatePrivateKey();
      const me = privateKeyToAccount(key);
      await faucet({ address: me.address, account: 'perp', token: 'USDC', amount: '100000' });
      const registered = (await run(`npm run --silent admin -- --url ${node.url} --token ${ADMIN_TOKEN} --compact maker put ${me.address} --pairs ETH-USDC --modes perp`, ROOT, {})).code;
      assert.equal(registered, 0, 'the operator CLI registers a perp maker');

      // The network example: the fields the service answers, venue included.
      const makerClient = new RfqClient(node.url);
      await makerClient.signIn(me);
      const answered = await makerClient.network();
      assert.equal(answered.venue?.network, 'testnet');
      assert.deepEqual(shape(JSON.parse(await guideBlock('json', 'network'))), shape(answered));

      const taker = privateKeyToAccount(generatePrivateKey());
      await faucet({ address: taker.address, account: 'perp', token: 'USDC', amount: '100000' });
      const takerClient = new RfqClient(node.url);
      await takerClient.signIn(taker);
      const perpTaker = await PerpTaker.connect(takerClient, taker, venue);
      const quoteLimit = await perpTaker.defaultLimit('ETH-USDC-PERP', 'BUY', '0.2');
      const { rfqId } = await takerClient.createRfq({ instrumentId: 'ETH-USDC-PERP', side: 'BUY', baseQty: '0.2', quoteLimit, windowMs: 30_000 });

      // The guide's program, run with the command its first line gives.
      const program = await guideBlock('ts', 'perp-maker');
      const command = /^\/\/ perp-maker\.ts: (?:\S+=\S+ )*(.+)$/m.exec(program)?.[1];
      assert.equal(command, 'npm exec -- node perp-maker.ts');
      for (const entry of ['package.json', 'node_modules', 'src', 'examples']) await symlink(path.join(ROOT, entry), path.join(scratch, entry));
      await writeFile(path.join(scratch, 'perp-maker.ts'), program);
      const quoted = await run(command, scratch, { RFQ_URL: node.url, RFQ_PRIVATE_KEY: key });
      assert.equal(quoted.code, 0, `stdout: ${quoted.stdout}\nstderr: ${quoted.stderr}`);
      assert.match(quoted.stdout, new RegExp(`^quoted ${rfqId}: qt_\\S+ 0\\.2 ETH for \\S+ USDC$`, 'm'));

      const quote = (await eventually(() => takerClient.rfqQuotes(rfqId), (page) => page.items.length > 0)).items[0] as Quote;
      await perpTaker.accept({ id: rfqId, instrumentId: 'ETH-USDC-PERP', side: 'BUY' }, quote);
      const rfq = await eventually(() => takerClient.getRfq(rfqId), (r: Rfq) => r.status === 'SETTLED' || r.status === 'FAILED');
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));

      // The guide's quote body names exactly the fields of one the client library signs.
      const asset = { coin: 'ETH', index: 1, szDecimals: 4 };
      const signed = await signMakerOrders(me, { side: 'BUY', asset, size: '0.2', price: 3500_300000n }, 'testnet', new VenueNonces());
      const body = { rfqId, instrumentId: 'ETH-USDC-PERP', side: 'BUY', makerPays: quote.makerPays, makerReceives: quote.makerReceives, ...signed };
      assert.deepEqual(shape(JSON.parse(await guideBlock('json', 'perp'))), shape(body));
    } finally {
      await rm(scratch, { recursive: true, force: true });
      await node.close();
      await sim.stop();
    }
  });
});
