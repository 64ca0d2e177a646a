/**
 * Sends every custody transaction (withdrawals, promised payouts, xchange executions and adapter
 * approvals: nothing else sends from custody, so the nonces below are custody's only ones) so
 * that a crash at any point neither loses nor doubles one:
 * 1. sign: in ONE store transaction, allocate custody's next nonce (persisted per address), sign
 *    the ERC-20 transfer (or the queued contract call) locally and persist the raw transaction
 *    and its hash; only then
 * 2. send: hand the persisted bytes to the node; after a restart the same bytes are sent again
 *    (same hash: the node dedupes them, and a nonce is never signed twice for one transfer);
 * 3. confirm: by receipt at the configured depth -> CONFIRMED (success) or REVERTED; a transaction
 *    that cannot be found once its nonce is used by another transaction, or is still unconfirmed
 *    after `maxSendAttempts` sends and `maxPendingMs`, is UNRESOLVED for the operator.
 * Every outcome is applied with the owner's ledger change in the transaction that ends the row.
 */
import type { Logger } from 'pino';
import { encodeFunctionData, erc20Abi, getAddress, keccak256, type Hex } from 'viem';
import { sql } from 'kysely';
import { inTransaction } from '../../store/outbox.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { applyCustodyOutcome, statusAfter, type CustodyOutcome } from '../../services/funds/custody-outcomes.ts';
import type { CustodyTransferRow } from '../../services/funds/custody-transfers.ts';
import type { ChainContext } from '../chain-context.ts';
import { PollLoop } from '../poll-loop.ts';

export interface BroadcasterOptions {
  deps: ServiceDeps;
  chain: ChainContext;
  logger: Logger;
  /** Transfers handled per phase per tick. */
  batchSize?: number;
  /** An unconfirmed transaction is re-sent (same bytes) at most this often. */
  resendIntervalMs?: number;
  /** Unconfirmed after this many sends and this long since signing: UNRESOLVED. */
  maxSendAttempts?: number;
  maxPendingMs?: number;
  /** Gas limit of an ERC-20 transfer: fixed so signing needs no estimate (bounded cost). */
  transferGas?: bigint;
}

const RPC_TIMEOUT_MS = 10_000;

export class CustodyBroadcaster {
  readonly #o: Required<BroadcasterOptions>;
  readonly #loop: PollLoop;

  constructor(options: BroadcasterOptions) {
    this.#o = { batchSize: 20, resendIntervalMs: 3000, maxSendAttempts: 20, maxPendingMs: 120_000, transferGas: 120_000n, ...options };
    this.#loop = new PollLoop({ pass: () => this.tick(), intervalMs: () => options.chain.settings.pollIntervalMs, logger: options.logger, failureMessage: 'custody broadcaster tick failed; retrying' });
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
  }

  /** One round of every phase (exported for tests that stop between phases). */
  async tick(): Promise<void> {
    await this.signQueued();
    await this.sendSigned();
    await this.confirmSent();
  }

  #rpc<T>(method: string, params: unknown[]): Promise<T> {
    const request = this.#o.chain.custody.publicClient.request as (a: { method: string; params: unknown[] }) => Promise<T>;
    return Promise.race([
      request({ method, params }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${method} timed out after ${RPC_TIMEOUT_MS} ms`)), RPC_TIMEOUT_MS).unref()),
    ]);
  }

  async #minedNonceCount(): Promise<number> {
    return Number(await this.#rpc<Hex>('eth_getTransactionCount', [this.#o.chain.custodyAddress, 'latest']));
  }

  /** Phase 1: nonce, signature and persisted raw transaction, one transaction per transfer. */
  async signQueued(): Promise<number> {
    const { deps, chain } = this.#o;
    const queued = await deps.db.selectFrom('custody_transfers').select('id').where('status', '=', 'QUEUED').orderBy('created_at').limit(this.#o.batchSize).execute();
    if (queued.length === 0) return 0;
    const fees = await chain.custody.publicClient.estimateFeesPerGas();
    const pendingCount = Number(await this.#rpc<Hex>('eth_getTransactionCount', [chain.custodyAddress, 'pending']));
    const minedCount = await this.#minedNonceCount();
    const from = chain.custodyAddress;
    let signed = 0;
    for (const { id } of queued) {
      const done = await inTransaction(deps.db, async (tx) => {
        const row = await tx.selectFrom('custody_transfers').selectAll().where('id', '=', id).where('status', '=', 'QUEUED').forUpdate().skipLocked().executeTakeFirst();
        if (!row) return false;
        await tx.insertInto('custody_nonces').values({ address: from, next_nonce: pendingCount }).onConflict((oc) => oc.column('address').doNothing()).execute();
        const stored = await tx.selectFrom('custody_nonces').select('next_nonce').where('address', '=', from).forUpdate().executeTakeFirstOrThrow();
        // Nonces below the mined count were used by someone else: never sign into them.
        const nonce = Math.max(stored.next_nonce, minedCount);
        const call = row.call_data !== null;
        const raw = await chain.custody.account.signTransaction!({
          type: 'eip1559',
          chainId: chain.chainId,
          nonce,
          to: getAddress(call ? row.to_address : row.token_address),
          data: call ? (row.call_data as Hex) : encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [getAddress(row.to_address), row.amount] }),
          gas: row.gas !== null ? BigInt(row.gas) : this.#o.transferGas,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          value: 0n,
        });
        const hash = keccak256(raw);
        const now = deps.clock.now();
        await tx.updateTable('custody_nonces').set({ next_nonce: nonce + 1 }).where('address', '=', from).execute();
        const updated = await tx
          .updateTable('custody_transfers')
          .set({ status: 'SIGNED', from_address: from, nonce, raw_tx: raw, tx_hash: hash, signed_at: now, updated_at: now })
          .where('id', '=', row.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await applyCustodyOutcome(tx, deps, updated, { kind: 'signed' }, now);
        return true;
      });
      if (done) signed++;
    }
    return signed;
  }

  /** Phase 2: (re)send persisted transactions not yet confirmed; same bytes every time. */
  async sendSigned(): Promise<number> {
    const { deps } = this.#o;
    const now = deps.clock.now();
    const rows = await deps.db
      .selectFrom('custody_transfers')
      .selectAll()
      .where((eb) => eb.or([eb('status', '=', 'SIGNED'), eb.and([eb('status', '=', 'SENT'), eb('last_sent_at', '<', now - this.#o.resendIntervalMs)])]))
      .orderBy('nonce')
      .limit(this.#o.batchSize)
      .execute();
    for (const row of rows) {
      let error: string | null = null;
      try {
        const hash = await this.#rpc<Hex>('eth_sendRawTransaction', [row.raw_tx]);
        if (hash.toLowerCase() !== row.tx_hash!.toLowerCase()) throw new Error(`node answered ${hash} for ${row.tx_hash}`);
      } catch (e) {
        // "already known" / "nonce too low" are expected on a resend: the confirm phase decides.
        error = e instanceof Error ? e.message.slice(0, 500) : String(e);
      }
      await deps.db
        .updateTable('custody_transfers')
        .set({ status: 'SENT', send_attempts: sql`send_attempts + 1`, last_sent_at: deps.clock.now(), last_error: error, updated_at: deps.clock.now() })
        .where('id', '=', row.id)
        .where('status', 'in', ['SIGNED', 'SENT'])
        .execute();
    }
    return rows.length;
  }

  /** Phase 3: receipts at depth end transfers; lost ones become UNRESOLVED. */
  async confirmSent(): Promise<number> {
    const { deps, chain } = this.#o;
    const rows = await deps.db.selectFrom('custody_transfers').selectAll().where('status', '=', 'SENT').orderBy('nonce').limit(this.#o.batchSize).execute();
    if (rows.length === 0) return 0;
    const head = Number(await this.#rpc<Hex>('eth_blockNumber', []));
    const minedCount = await this.#minedNonceCount();
    let ended = 0;
    for (const row of rows) {
      const receipt = await this.#rpc<{ status: Hex; blockNumber: Hex } | null>('eth_getTransactionReceipt', [row.tx_hash]);
      let outcome: Exclude<CustodyOutcome, { kind: 'signed' }> | null = null;
      if (receipt) {
        const blockNumber = Number(receipt.blockNumber);
        if (head - blockNumber + 1 >= chain.settings.confirmations) {
          outcome = receipt.status === '0x1' ? { kind: 'confirmed', blockNumber } : { kind: 'reverted', blockNumber };
        }
      } else if (row.nonce !== null && minedCount > row.nonce) {
        outcome = { kind: 'lost', reason: `custody nonce ${row.nonce} was used by another transaction; ${row.tx_hash} is not on-chain` };
      } else if (row.send_attempts >= this.#o.maxSendAttempts && deps.clock.now() - (row.signed_at ?? 0) > this.#o.maxPendingMs) {
        outcome = { kind: 'lost', reason: `${row.tx_hash} not confirmed after ${row.send_attempts} sends` };
      }
      if (!outcome) continue;
      const final = outcome;
      const done = await inTransaction(deps.db, async (tx) => {
        const now = deps.clock.now();
        const updated = await tx
          .updateTable('custody_transfers')
          .set({ status: statusAfter(final), confirmed_block: 'blockNumber' in final ? final.blockNumber : null, last_error: final.kind === 'lost' ? final.reason : row.last_error, updated_at: now })
          .where('id', '=', row.id)
          .where('status', '=', 'SENT')
          .returningAll()
          .executeTakeFirst();
        if (!updated) return false;
        await applyCustodyOutcome(tx, deps, updated as CustodyTransferRow, final, now);
        return true;
      });
      if (done) {
        ended++;
        if (final.kind !== 'confirmed') this.#o.logger.warn({ transfer: row.id, purpose: row.purpose, outcome: final }, 'custody transfer did not complete');
      }
    }
    return ended;
  }
}
