/** Shared steps of the funds tests: wallets that can sign on-chain and over the API, real deposits, polling. */
import assert from 'node:assert/strict';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import type { Harness } from '../../helpers/harness.ts';
import { testAccount, type TestChain } from '../../helpers/chain.ts';
import { waitUntil } from '../../helpers/eventually.ts';

/** Polls `read` until `done` holds (bounded: 30 s, 100 ms apart); returns the value. */
export async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  return waitUntil(read, done, what, { timeoutMs: 30_000, pollMs: 100 });
}

export async function rpc<T>(chain: TestChain, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

/** A wallet signed in over the API whose key the chain helpers can also sign with. */
export async function wallet(h: Harness, chain: TestChain): Promise<{ client: RfqClient; account: PrivateKeyAccount }> {
  const account = testAccount();
  await chain.fundGas(account.address);
  const client = new RfqClient(h.url);
  await client.signIn(account);
  return { client, account };
}

/** Mints `raw` of `symbol` to the wallet and transfers it to custody: a real deposit. */
export async function depositOnChain(chain: TestChain, account: PrivateKeyAccount, symbol: string, raw: bigint): Promise<Hex> {
  await chain.mint(symbol, account.address, raw);
  return chain.transfer(account, symbol, chain.custody, raw);
}

export interface Page<T> { items: T[]; hasMore: boolean; nextCursor?: string | null }
export interface DepositView { depositId: string; token: string; amount: string; status: string; txHash: string }
export interface WithdrawalView { withdrawalId: string; token: string; amount: string; status: string; toAddress: string; txHash?: string; failureReason: string | null }

export const deposits = (client: RfqClient, query: Record<string, string | number> = {}) => client.signed<Page<DepositView>>('GET', '/v1/rfq/deposits', { query: query as never });
export const withdrawals = (client: RfqClient) => client.signed<Page<WithdrawalView>>('GET', '/v1/rfq/withdrawals');
export const withdrawal = (client: RfqClient, id: string) => client.signed<WithdrawalView>('GET', `/v1/rfq/withdrawals/${id}`);
export const requestWithdrawal = (client: RfqClient, body: { token: string; amount: string; idempotencyKey?: string }) =>
  client.signed<{ status: string; withdrawalId: string }>('POST', '/v1/rfq/withdrawals', { body });

export async function balanceOf(client: RfqClient, token: string): Promise<{ available: string; locked: string; total: string } | undefined> {
  return (await client.balances()).balances.find((b) => b.token === token);
}

export async function invariantsOk(h: Harness): Promise<void> {
  const result = await h.admin.invariants();
  assert.deepEqual(result.violations, []);
  assert.equal(result.ok, true);
}

/** Waits until the node's follower has booked everything final (so the custody check is current), then checks. */
export async function settledInvariants(h: Harness, chain: TestChain): Promise<void> {
  const head = Number(await rpc<string>(chain, 'eth_blockNumber'));
  await waitFor('follower at head', async () => (await h.node.store.db.selectFrom('chain_cursors').select('block_number').where('name', '=', 'main').executeTakeFirst())?.block_number ?? 0, (n) => n >= head - (chain.stack.settings.confirmations - 1));
  await waitFor('no custody transfer in flight', async () => (await h.node.store.db.selectFrom('custody_transfers').select('id').where('status', 'in', ['QUEUED', 'SIGNED', 'SENT']).execute()).length, (n) => n === 0);
  await invariantsOk(h);
}
