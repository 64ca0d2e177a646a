/**
 * One bad log must not stop the chain follower, on a running node with anvil:
 * - a listed token that emits a Transfer into custody with unreadable amount data: the log is
 *   quarantined (a settlement anomaly with its error, in the invariants report and the gauge), the
 *   next genuine deposit is still credited, and the operator resolves the anomaly;
 * - a flood of forged `RfqSettled` logs naming one maker in one block costs one `wrapperOf` call
 *   (negative answers cached, one scan per step shared by the handlers), and deposits go on;
 * - a deposit whose crediting keeps failing (the cause here: a store trigger refusing it, which the
 *   test then drops) is quarantined uncredited; the operator's replay fails while the cause is
 *   there and, once it is removed, credits it exactly once (two concurrent replays: one applies,
 *   the other is refused), and a replayed or handled anomaly cannot be replayed again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import solc from 'solc';
import { sql } from 'kysely';
import { keccak256, parseUnits, stringToHex, type Abi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { connectSigner } from '../../../src/chain/clients.ts';
import { wrapperOfCalls } from '../../../src/chain/funds/wrapper-of.ts';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { rejects } from '../../helpers/rejects.ts';
import { balanceOf, depositOnChain, deposits, rpc, settledInvariants, waitFor, wallet } from '../funds/helpers.ts';

const USDC = (n: string) => parseUnits(n, 6);

/** Emits `Transfer(from, to, ?)` with no data: a token no decoder can read an amount from. */
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
contract BrokenToken {
  function balanceOf(address) external pure returns (uint256) { return 0; }
  function emitBroken(address to) external {
    bytes32 topic = keccak256("Transfer(address,address,uint256)");
    address from = msg.sender;
    assembly { log3(0, 0, topic, from, to) }
  }
}
contract Forger {
  event RfqSettled(bytes32 indexed quoteHash, address indexed maker, address payToken, uint256 payAmount, address deliverToken, uint256 deliverAmount);
  function forge(bytes32 quoteHash, address maker) external {
    emit RfqSettled(quoteHash, maker, address(0), 1, address(0), 1);
  }
}`;

function compile(): Record<string, { abi: Abi; bytecode: Hex }> {
  const input = { language: 'Solidity', sources: { 'T.sol': { content: SOURCE } }, settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as { contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>> };
  const out: Record<string, { abi: Abi; bytecode: Hex }> = {};
  for (const [name, c] of Object.entries(output.contracts['T.sol']!)) out[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return out;
}

for (const backend of backends()) {
  describe(`chain follower quarantine (${backend})`, () => {
    let chain: TestChain;
    let database: TestDatabase;
    let h: Harness;
    const contracts = compile();
    const key = generatePrivateKey();

    async function deploy(name: string): Promise<Address> {
      const c = await connectSigner(chain.rpcUrl, key);
      const hash = await c.walletClient.deployContract({ abi: contracts[name]!.abi, bytecode: contracts[name]!.bytecode });
      const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
      return receipt.contractAddress!;
    }
    const cursor = async () => (await h.node.store.db.selectFrom('chain_cursors').select('block_number').where('name', '=', 'main').executeTakeFirst())?.block_number ?? 0;

    before(async () => {
      chain = await startTestChain();
      database = await createTestDatabase(backend);
      h = await startHarness(backend, { database, chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
      await chain.fundGas(privateKeyToAccount(key).address);
    });
    after(async () => {
      await h?.close();
      await database?.drop();
      await chain?.stop();
    });

    it('a malformed Transfer from a listed token is quarantined; the next deposit is credited', async () => {
      const broken = await deploy('BrokenToken');
      await h.admin.putToken('BRK', { decimals: 18, address: broken });
      const c = await connectSigner(chain.rpcUrl, key);
      const badTx = await c.walletClient.writeContract({ address: broken, abi: contracts['BrokenToken']!.abi, functionName: 'emitBroken', args: [chain.custody] });
      await c.publicClient.waitForTransactionReceipt({ hash: badTx });

      const user = await wallet(h, chain);
      await depositOnChain(chain, user.account, 'USDC', USDC('5'));
      await waitFor('credited after the bad log', () => balanceOf(user.client, 'USDC'), (b) => b?.total === '5');

      const { anomalies } = await h.admin.call<{ anomalies: Array<{ txHash: string; logIndex: number; kind: string; detail: { handler: string; error: string } }> }>('GET', '/settlement-anomalies');
      const quarantined = anomalies.find((a) => a.txHash === badTx.toLowerCase());
      assert.ok(quarantined, 'the bad log is listed');
      assert.equal(quarantined.kind, 'HANDLER_FAILED');
      assert.equal(quarantined.detail.handler, 'deposits');
      assert.match(quarantined.detail.error, /unreadable amount/);
      const report = await h.admin.invariants();
      assert.equal(report.ok, false);
      assert.deepEqual(report.violations.map((v) => v['check']), ['quarantinedChainLogs']);
      const metrics = await (await fetch(`${h.url}/metrics`)).text();
      assert.match(metrics, /^rfq_chain_quarantined_logs 1$/m);

      // Its cause cannot be fixed: a replay fails again and changes nothing.
      const failed = await rejects(h.admin.replayAnomaly({ txHash: badTx, logIndex: quarantined.logIndex }), 409, 'ANOMALY_REPLAY_FAILED');
      assert.match(String(failed.details?.['error']), /unreadable amount/);
      await h.admin.call('POST', '/settlement-anomalies/resolve', { txHash: badTx, logIndex: quarantined.logIndex, note: 'not a real token transfer' });
      assert.match(await (await fetch(`${h.url}/metrics`)).text(), /^rfq_chain_quarantined_logs 0$/m);
      const handled = await rejects(h.admin.replayAnomaly({ txHash: badTx, logIndex: quarantined.logIndex }), 409, 'ANOMALY_ALREADY_RESOLVED');
      assert.equal(handled.details?.['resolution'], 'HANDLED: not a real token transfer');
      await settledInvariants(h, chain);
    });

    it('a flood of forged RfqSettled logs in one block costs one wrapperOf call; deposits go on', async () => {
      const forger = await deploy('Forger');
      const fakeMaker = privateKeyToAccount(generatePrivateKey()).address;
      const c = await connectSigner(chain.rpcUrl, key);
      const head = Number(await rpc<string>(chain, 'eth_blockNumber'));
      await waitFor('follower at head', cursor, (n) => n >= head);
      const before = wrapperOfCalls.count;
      const hashes: Hex[] = [];
      await rpc(chain, 'evm_setIntervalMining', [0]);
      await rpc(chain, 'evm_setAutomine', [false]);
      try {
        let nonce = await c.publicClient.getTransactionCount({ address: c.account.address });
        for (let i = 0; i < 10; i++) {
          hashes.push(await c.walletClient.writeContract({ address: forger, abi: contracts['Forger']!.abi, functionName: 'forge', args: [keccak256(stringToHex(`forged-${i}`)), fakeMaker], gas: 100_000n, nonce: nonce++ }));
        }
        await rpc(chain, 'evm_mine');
      } finally {
        await rpc(chain, 'evm_setAutomine', [true]);
        await rpc(chain, 'evm_setIntervalMining', [1]);
      }
      const receipts = await Promise.all(hashes.map((hash) => c.publicClient.waitForTransactionReceipt({ hash })));
      const block = Number(receipts[0]!.blockNumber);
      assert.ok(receipts.every((r) => Number(r.blockNumber) === block && r.logs.length === 1), 'ten forged logs in one block');
      await waitFor('follower past the flood', cursor, (n) => n >= block);
      assert.equal(wrapperOfCalls.count - before, 1, 'one wrapperOf call for the forged maker');

      const user = await wallet(h, chain);
      await depositOnChain(chain, user.account, 'USDC', USDC('3'));
      await waitFor('credited after the flood', () => balanceOf(user.client, 'USDC'), (b) => b?.total === '3');
      await settledInvariants(h, chain);
    });

    it('a deposit quarantined for a cause later removed is replayed by the operator and credited once', async () => {
      const user = await wallet(h, chain);
      const db = h.node.store.db;
      await sql`create function refuse_credit() returns trigger language plpgsql as $$ begin raise exception 'ledger unavailable for %', new.from_address; end $$`.execute(db);
      await sql`create trigger refuse_credit before insert or update on deposits for each row when (new.status = 'COMPLETED' and new.from_address = ${sql.lit(user.account.address)}) execute function refuse_credit()`.execute(db);
      const depositTx = (await depositOnChain(chain, user.account, 'USDC', USDC('7'))).toLowerCase();
      type Anomaly = { txHash: string; logIndex: number; kind: string; detail: { handler: string; error: string }; resolvedAt: number | null; resolution: string | null };
      const anomaly = async () => (await h.admin.call<{ anomalies: Anomaly[] }>('GET', '/settlement-anomalies')).anomalies.find((a) => a.txHash === depositTx);
      const quarantined = await waitFor('the failing deposit quarantined', anomaly, (a) => a !== undefined);
      assert.equal(quarantined!.detail.handler, 'deposits');
      assert.match(quarantined!.detail.error, /ledger unavailable/);
      const logIndex = quarantined!.logIndex;
      const movements = async () => (await db.selectFrom('ledger_movements').select('movement_id').where('reference', '=', `${depositTx}:${logIndex}`).execute()).length;
      // The follower moved on: a later deposit from another account is credited meanwhile.
      const other = await wallet(h, chain);
      await depositOnChain(chain, other.account, 'USDC', USDC('2'));
      await waitFor('the next deposit credited', () => balanceOf(other.client, 'USDC'), (b) => b?.total === '2');
      assert.equal((await balanceOf(user.client, 'USDC'))?.total ?? '0', '0');

      // The cause is still there: the replay fails, nothing changes, the log stays quarantined.
      const failed = await rejects(h.admin.replayAnomaly({ txHash: depositTx, logIndex }), 409, 'ANOMALY_REPLAY_FAILED');
      assert.equal(failed.details?.['handler'], 'deposits');
      assert.equal((await anomaly())!.resolvedAt, null);
      assert.equal(await movements(), 0);

      await sql`drop trigger refuse_credit on deposits`.execute(db);
      await sql`drop function refuse_credit()`.execute(db);
      const outcomes = await Promise.allSettled([h.admin.replayAnomaly({ txHash: depositTx, logIndex }), h.admin.replayAnomaly({ txHash: depositTx, logIndex })]);
      const applied = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as { status: number; code: string }] : []));
      assert.equal(applied.length, 1, 'one replay applies');
      assert.deepEqual(refused.map((e) => [e.status, e.code]), [[409, 'ANOMALY_ALREADY_RESOLVED']]);
      assert.equal((applied[0] as PromiseFulfilledResult<Record<string, unknown>>).value['resolution'], 'REPLAYED');
      assert.equal((await balanceOf(user.client, 'USDC'))?.total, '7');
      assert.equal(await movements(), 1, 'credited exactly once');
      const [row] = (await deposits(user.client)).items;
      assert.deepEqual([row?.status, row?.txHash], ['COMPLETED', depositTx]);

      await rejects(h.admin.replayAnomaly({ txHash: depositTx, logIndex }), 409, 'ANOMALY_ALREADY_RESOLVED');
      assert.equal(await movements(), 1);
      assert.equal((await balanceOf(user.client, 'USDC'))?.total, '7');
      await settledInvariants(h, chain);
    });
  });
}
