/**
 * Executes selected xchange bundles from custody. The adapter moves a party's funds only when
 * that party sent the transaction or registered the signer; custody registers no maker's signer
 * (that would let the signer move any custody funds), so custody itself must send `execute`.
 *
 * A quote is claimed for an attempt in the store (one node at a time, again after `retryMs`
 * while the RFQ is still QUOTED and before its deadline). Each attempt simulates first: a swap
 * that would revert (maker's allowance or balance short, signer not registered on-chain) is not
 * sent, its reason is recorded and it is retried; `QuoteAlreadyUsed` means it was executed and
 * the chain follower will settle it. The RFQ is settled only by the follower, from the event.
 *
 * The executor sends nothing itself: a passing simulation enqueues the `execute` call (and a
 * missing allowance an `approval` call) for the custody broadcaster, which owns custody's nonces
 * (docs/decisions/0027-custody-broadcaster.md). A quote with an execution queued, in flight or confirmed is not
 * attempted again; one that reverted or was lost is, until the deadline. The call carries the
 * swap's expiration, so a backed-up broadcaster never signs it after that (it could only revert).
 */
import type { Logger } from 'pino';
import { BaseError, ContractFunctionRevertedError, encodeFunctionData, maxUint256, type Address, type Hex } from 'viem';
import { sql } from 'kysely';
import type { ServiceDeps } from '../services/deps.ts';
import { enqueueCustodyCall } from '../services/funds/custody-transfers.ts';
import { inTransaction } from '../store/outbox.ts';
import type { XchangeBundleInput } from '../services/rfq/xchange-bundle.ts';
import { testTokenAbi, xchangeAdapterAbi } from './artifacts/index.ts';
import type { ChainContext } from './chain-context.ts';
import { swapMessageFromWire } from './xchange.ts';
import { PollLoop } from './poll-loop.ts';

export interface XchangeExecutorOptions {
  deps: ServiceDeps;
  chain: ChainContext;
  adapter: Address;
  logger: Logger;
  intervalMs?: number;
  retryMs?: number;
}

export class XchangeExecutor {
  readonly name = 'xchange-executor';
  readonly #o: Required<XchangeExecutorOptions>;
  readonly #loop: PollLoop;

  constructor(options: XchangeExecutorOptions) {
    this.#o = { intervalMs: 250, retryMs: 5000, ...options };
    this.#loop = new PollLoop({ pass: () => this.runOnce(), intervalMs: () => this.#o.intervalMs, logger: options.logger, failureMessage: 'xchange executor pass failed' });
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
  }

  /** Resolves once a pass begun after the call has ended (PollLoop.afterPass). */
  afterPass(): Promise<void> {
    return this.#loop.afterPass();
  }

  /** One pass: claims due quotes and attempts each. */
  async runOnce(): Promise<void> {
    const { deps } = this.#o;
    const now = deps.clock.now();
    const due = await deps.db
      .selectFrom('quotes as q')
      .innerJoin('rfqs as r', 'r.id', 'q.rfq_id')
      .leftJoin('xchange_executions as e', 'e.quote_id', 'q.id')
      .select(['q.id', 'q.xchange', 'q.maker_receives_token'])
      // The RFQ's winner, or any leg of a sweep (each selected quote of a sweep settles on its own).
      .where((eb) => eb.or([eb('r.selected_quote_id', '=', eb.ref('q.id')), eb('r.fill', '=', 'SWEEP')]))
      .where('q.status', '=', 'SELECTED')
      .where('q.settlement_mode', '=', 'xchange')
      .where('r.status', '=', 'QUOTED')
      .where('r.settlement_deadline_secs', '>=', Math.floor(now / 1000))
      .where((eb) => eb.or([eb('e.quote_id', 'is', null), eb('e.attempted_at', '<', now - this.#o.retryMs)]))
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('custody_transfers as t').select('t.id').whereRef('t.owner_id', '=', 'q.id').where('t.purpose', '=', 'xchange').where('t.status', 'in', ['QUEUED', 'SIGNED', 'SENT', 'CONFIRMED']))),
      )
      .limit(20)
      .execute();
    for (const quote of due) {
      if (this.#loop.stopped) return;
      if (!(await this.#claim(quote.id, now))) continue;
      await this.#attempt(quote.id, quote.maker_receives_token, quote.xchange as XchangeBundleInput);
    }
  }

  async #claim(quoteId: string, now: number): Promise<boolean> {
    const claimed = await sql<{ quote_id: string }>`
      insert into xchange_executions as e (quote_id, attempts, attempted_at) values (${quoteId}, 1, ${now})
      on conflict (quote_id) do update set attempts = e.attempts + 1, attempted_at = excluded.attempted_at
      where e.attempted_at < ${now - this.#o.retryMs}
      returning quote_id
    `.execute(this.#o.deps.db);
    return claimed.rows.length === 1;
  }

  async #record(quoteId: string, fields: { tx_hash?: string; last_error?: string | null }): Promise<void> {
    await this.#o.deps.db.updateTable('xchange_executions').set(fields).where('quote_id', '=', quoteId).execute();
  }

  /** `outgoingSymbol`: the token custody gives in the swap (the taker's pay token). */
  async #attempt(quoteId: string, outgoingSymbol: string, bundle: XchangeBundleInput): Promise<void> {
    const { chain, adapter, deps, logger } = this.#o;
    const { publicClient, account } = chain.custody;
    const message = swapMessageFromWire(bundle.settlement.swapMessage);
    const signature = bundle.settlement.adapterSignature as Hex;
    const outgoing = message.outgoingTransfer;
    try {
      const allowance = await publicClient.readContract({ address: outgoing.token, abi: testTokenAbi, functionName: 'allowance', args: [account.address, adapter] });
      if (allowance < outgoing.amount) {
        await this.#enqueueApproval(outgoingSymbol, outgoing.token);
        await this.#record(quoteId, { last_error: 'waiting for custody approval of the xchange adapter' });
        return;
      }
      const call = { account, address: adapter, abi: xchangeAdapterAbi, functionName: 'execute', args: [message, signature] } as const;
      await publicClient.simulateContract(call);
      // Headroom over the estimate: the broadcaster signs with a fixed limit, possibly a block later.
      const gas = Number(((await publicClient.estimateContractGas(call)) * 3n) / 2n);
      const callData = encodeFunctionData({ abi: xchangeAdapterAbi, functionName: 'execute', args: [message, signature] });
      await inTransaction(deps.db, async (tx) => {
        await enqueueCustodyCall(tx, deps, { purpose: 'xchange', ownerId: quoteId, token: outgoingSymbol, tokenAddress: outgoing.token, amount: outgoing.amount, toAddress: adapter, callData, gas, notAfterSecs: Number(message.expiration) }, deps.clock.now());
        await tx.updateTable('xchange_executions').set({ last_error: null }).where('quote_id', '=', quoteId).execute();
      });
    } catch (error) {
      const reason = revertName(error);
      await this.#record(quoteId, { last_error: reason });
      if (reason !== 'QuoteAlreadyUsed') logger.warn({ quoteId, reason }, 'xchange execution not sent; will retry until the settlement deadline');
    }
  }

  /** Custody approves the adapter once per token (unlimited: only custody's own calls can use it). */
  async #enqueueApproval(symbol: string, token: Address): Promise<void> {
    const { deps, adapter } = this.#o;
    const callData = encodeFunctionData({ abi: testTokenAbi, functionName: 'approve', args: [adapter, maxUint256] });
    await inTransaction(deps.db, (tx) =>
      enqueueCustodyCall(tx, deps, { purpose: 'approval', ownerId: token.toLowerCase(), token: symbol, tokenAddress: token, amount: 0n, toAddress: token, callData, gas: APPROVAL_GAS }, deps.clock.now()),
    );
  }
}

/** An ERC-20 approve's gas limit: fixed (like the broadcaster's transfer gas), generous. */
const APPROVAL_GAS = 100_000;

function revertName(error: unknown): string {
  if (error instanceof BaseError) {
    const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) return revert.data?.errorName ?? revert.shortMessage;
    return error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}
