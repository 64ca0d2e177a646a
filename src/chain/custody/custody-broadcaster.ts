/**
 * Sends every custody transaction (withdrawals, promised payouts, xchange executions and adapter
 * approvals: nothing else sends from custody, so the nonces below are custody's only ones) so
 * that a crash at any point neither loses nor doubles one:
 * 1. sign: in ONE store transaction, allocate custody's next nonce (persisted per address), sign
 *    the ERC-20 transfer (or the queued contract call) locally and persist the raw transaction
 *    and its hash (attempt 0 in `custody_tx_attempts`); only then
 * 2. replace: a transaction still unmined after `bumpAfterMs` is replaced at the same nonce by
 *    one paying at least 12.5% more (the node refuses a smaller bump), at most the operator's fee
 *    cap; an operator cancel replaces it by a zero-value transfer to custody itself, and so does
 *    the broadcaster for a call past its deadline (`not_after_secs`: an xchange `execute` that can
 *    only revert now is never signed again; one still queued then ends EXPIRED unsigned). Every
 *    replacement is persisted before it is sent, and any of them may be the one mined;
 * 3. send: hand the latest persisted bytes to the node; after a restart the same bytes are sent
 *    again (same hash: the node dedupes them);
 * 4. confirm: once custody's nonce is used, the attempt that used it decides at the configured
 *    depth -> CONFIRMED (success), REVERTED, CANCELLED (the cancel was mined: nothing paid) or
 *    UNRESOLVED (none of ours was mined: another transaction used the nonce). One still unmined
 *    after `maxSendAttempts` sends and `maxPendingMs` is escalated (a withdrawal becomes
 *    UNRESOLVED for the operator) but stays watched and bumped: it may still be mined, and then
 *    its outcome is booked like any other.
 * Every outcome is applied with the owner's ledger change in the transaction that ends the row.
 */
import type { Logger } from 'pino';
import { encodeFunctionData, erc20Abi, getAddress, keccak256, parseGwei, parseTransaction, type Hex } from 'viem';
import { inTransaction } from '../../store/outbox.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { EndingOutcome } from '../../services/funds/custody-outcomes.ts';
import { claimCustodyNonce, endSentTransfer, escalateSentTransfer, expireQueuedTransfer, noteTransferError, recordTransferReplaced, recordTransferSent, recordTransferSigned } from '../../services/funds/custody-transfer-progress.ts';
import type { CustodyTransferRow } from '../../services/funds/custody-transfers.ts';
import { finalBlock, type ChainContext } from '../chain-context.ts';
import { PollLoop } from '../poll-loop.ts';
import { custodyRpc } from './custody-chain-reader.ts';

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
  /** An unmined transaction is replaced with a higher fee this long after its latest signing. */
  bumpAfterMs?: number;
  /** The operator's cap on any custody transaction's max fee per gas (wei). */
  maxFeePerGasWei?: bigint;
}

/** Gas of the zero-value cancel (a plain transfer to custody itself). */
const CANCEL_GAS = 21_000n;
/** Default fee cap when the chain settings name none. */
export const DEFAULT_CUSTODY_MAX_FEE_PER_GAS_WEI = parseGwei('500');

/** The smallest replacement fee a node accepts: +12.5% (geth needs +10%), rounded up. */
const bumped = (fee: bigint) => (fee * 9n + 7n) / 8n;
const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);

type Attempt = { attempt: number; kind: 'original' | 'replacement' | 'cancel'; tx_hash: string; raw_tx: string; signed_at: number };

export class CustodyBroadcaster {
  readonly #o: Required<BroadcasterOptions>;
  readonly #loop: PollLoop;

  constructor(options: BroadcasterOptions) {
    this.#o = {
      batchSize: 20,
      resendIntervalMs: 3000,
      maxSendAttempts: 20,
      maxPendingMs: 120_000,
      transferGas: 120_000n,
      bumpAfterMs: 15_000,
      maxFeePerGasWei: options.chain.settings.custodyMaxFeePerGasWei ?? DEFAULT_CUSTODY_MAX_FEE_PER_GAS_WEI,
      ...options,
    };
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
    await this.replaceStuck();
    await this.sendSigned();
    await this.confirmSent();
  }

  #rpc<T>(method: string, params: unknown[]): Promise<T> {
    return custodyRpc<T>(this.#o.chain, method, params);
  }

  /** The current fee estimate, capped by the operator's cap. */
  async #fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const fees = await this.#o.chain.custody.publicClient.estimateFeesPerGas();
    const cap = this.#o.maxFeePerGasWei;
    const maxFeePerGas = fees.maxFeePerGas > cap ? cap : fees.maxFeePerGas;
    return { maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas > maxFeePerGas ? maxFeePerGas : fees.maxPriorityFeePerGas };
  }

  #attempts(transferId: string): Promise<Attempt[]> {
    return this.#o.deps.db.selectFrom('custody_tx_attempts').select(['attempt', 'kind', 'tx_hash', 'raw_tx', 'signed_at']).where('transfer_id', '=', transferId).orderBy('attempt', 'desc').execute();
  }

  /**
   * The earliest timestamp the next block can have: after the latest block's, and not before the
   * wall clock (a devnet may mine rarely). A call whose deadline is below it can only revert.
   */
  async #nextBlockSecs(): Promise<number> {
    const latest = await this.#rpc<{ timestamp: Hex }>('eth_getBlockByNumber', ['latest', false]);
    return Math.max(Number(latest.timestamp) + 1, Math.floor(this.#o.deps.clock.now() / 1000));
  }

  async #minedNonceCount(): Promise<number> {
    return Number(await this.#rpc<Hex>('eth_getTransactionCount', [this.#o.chain.custodyAddress, 'latest']));
  }

  /** Phase 1: nonce, signature and persisted raw transaction, one transaction per transfer. */
  async signQueued(): Promise<number> {
    const { deps, chain } = this.#o;
    const queued = await deps.db.selectFrom('custody_transfers').select('id').where('status', '=', 'QUEUED').orderBy('created_at').limit(this.#o.batchSize).execute();
    if (queued.length === 0) return 0;
    const fees = await this.#fees();
    const pendingCount = Number(await this.#rpc<Hex>('eth_getTransactionCount', [chain.custodyAddress, 'pending']));
    const minedCount = await this.#minedNonceCount();
    const nextBlockSecs = await this.#nextBlockSecs();
    const from = chain.custodyAddress;
    let signed = 0;
    for (const { id } of queued) {
      const done = await inTransaction(deps.db, async (tx) => {
        const row = await tx.selectFrom('custody_transfers').selectAll().where('id', '=', id).where('status', '=', 'QUEUED').forUpdate().skipLocked().executeTakeFirst();
        if (!row) return false;
        if (row.not_after_secs !== null && nextBlockSecs > row.not_after_secs) {
          // A backed-up queue must not sign a call that can only revert (and cost gas) on-chain.
          await this.#expire(tx, row, `not signed: its deadline ${row.not_after_secs} passed while queued (the next block is at ${nextBlockSecs} or later)`);
          return false;
        }
        const nonce = await claimCustodyNonce(tx, from, { pendingCount, minedCount });
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
        await recordTransferSigned(tx, deps, row, { fromAddress: from, nonce, rawTx: raw, txHash: hash }, now);
        return true;
      });
      if (done) signed++;
    }
    return signed;
  }

  /**
   * Phase 2: a fee bump for each transaction unmined since `bumpAfterMs`, and the zero-value cancel
   * the operator asked for; each persisted (a new attempt, and the transfer's latest bytes) before
   * the send phase hands it to the node.
   */
  async replaceStuck(): Promise<number> {
    const { deps, chain } = this.#o;
    const now = deps.clock.now();
    const rows = await deps.db
      .selectFrom('custody_transfers')
      .select(['id', 'nonce', 'cancel_requested_at', 'not_after_secs'])
      .where('status', 'in', ['SIGNED', 'SENT'])
      .where('nonce', 'is not', null)
      .orderBy('nonce')
      .limit(this.#o.batchSize)
      .execute();
    if (rows.length === 0) return 0;
    const minedCount = await this.#minedNonceCount();
    const nextBlockSecs = rows.some((r) => r.not_after_secs !== null) ? await this.#nextBlockSecs() : 0;
    let estimate: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | null = null;
    let replaced = 0;
    for (const row of rows) {
      if (row.nonce! < minedCount) continue; // mined (or taken): the confirm phase decides
      const [latest] = await this.#attempts(row.id);
      if (!latest) continue;
      // A call past its deadline can only revert now: never re-signed as such, its nonce is freed
      // by a zero-value cancel instead (at once: waiting for a bump would only hold later nonces).
      const expired = row.not_after_secs !== null && nextBlockSecs > row.not_after_secs;
      const cancel = (row.cancel_requested_at !== null || expired) && latest.kind !== 'cancel';
      if (!cancel && now - latest.signed_at < this.#o.bumpAfterMs) continue;
      estimate ??= await this.#fees();
      const previous = parseTransaction(latest.raw_tx as Hex);
      const floorMax = bumped(previous.maxFeePerGas ?? 0n);
      const floorTip = bumped(previous.maxPriorityFeePerGas ?? 0n);
      const maxPriorityFeePerGas = maxOf(estimate.maxPriorityFeePerGas, floorTip);
      const maxFeePerGas = maxOf(maxOf(estimate.maxFeePerGas, floorMax), maxPriorityFeePerGas);
      if (maxFeePerGas > this.#o.maxFeePerGasWei) {
        const reason = `cannot replace ${latest.tx_hash}: a replacement needs maxFeePerGas ${maxFeePerGas} wei, above the cap ${this.#o.maxFeePerGasWei}`;
        await noteTransferError(deps.db, row.id, reason, now);
        continue;
      }
      const done = await inTransaction(deps.db, async (tx) => {
        const locked = await tx.selectFrom('custody_transfers').selectAll().where('id', '=', row.id).where('status', 'in', ['SIGNED', 'SENT']).forUpdate().skipLocked().executeTakeFirst();
        if (!locked) return false;
        const top = await tx.selectFrom('custody_tx_attempts').select(['attempt', 'kind']).where('transfer_id', '=', row.id).orderBy('attempt', 'desc').limit(1).executeTakeFirstOrThrow();
        if (top.attempt !== latest.attempt) return false; // another node replaced it meanwhile
        const kind = cancel || latest.kind === 'cancel' ? 'cancel' : 'replacement';
        const raw = await chain.custody.account.signTransaction!({
          type: 'eip1559',
          chainId: chain.chainId,
          nonce: locked.nonce!,
          ...(kind === 'cancel'
            ? { to: chain.custodyAddress, data: '0x' as Hex, gas: CANCEL_GAS, value: 0n }
            : { to: previous.to!, data: previous.data ?? '0x', gas: previous.gas!, value: previous.value ?? 0n }),
          maxFeePerGas,
          maxPriorityFeePerGas,
        });
        const hash = keccak256(raw);
        const at = deps.clock.now();
        await recordTransferReplaced(tx, locked, { attempt: latest.attempt + 1, kind, nonce: locked.nonce!, rawTx: raw, txHash: hash }, at);
        return true;
      });
      if (done) {
        replaced++;
        this.#o.logger.warn({ transfer: row.id, nonce: row.nonce, replaced: latest.tx_hash, cancel, maxFeePerGas: maxFeePerGas.toString() }, cancel ? 'custody transaction cancel signed' : 'custody transaction fee bumped');
      }
    }
    return replaced;
  }

  /** Phase 3: (re)send the latest persisted transaction of each unconfirmed transfer. */
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
      await recordTransferSent(deps.db, row.id, error, deps.clock.now());
    }
    return rows.length;
  }

  /**
   * Phase 4: once custody's nonce is used, the attempt mined at it ends the transfer at depth
   * (none of ours: UNRESOLVED); one unmined past the bounds is escalated once and still watched.
   */
  async confirmSent(): Promise<number> {
    const { deps, chain } = this.#o;
    const rows = await deps.db.selectFrom('custody_transfers').selectAll().where('status', '=', 'SENT').orderBy('nonce').limit(this.#o.batchSize).execute();
    if (rows.length === 0) return 0;
    const head = Number(await this.#rpc<Hex>('eth_blockNumber', []));
    const minedCount = await this.#minedNonceCount();
    let ended = 0;
    for (const row of rows) {
      let outcome: EndingOutcome | null = null;
      let minedHash: string | null = null;
      if (row.nonce !== null && minedCount > row.nonce) {
        let waiting = false;
        for (const attempt of await this.#attempts(row.id)) {
          const receipt = await this.#rpc<{ status: Hex; blockNumber: Hex } | null>('eth_getTransactionReceipt', [attempt.tx_hash]);
          if (!receipt) continue;
          const blockNumber = Number(receipt.blockNumber);
          // Not deep enough yet, or (embedded devnet) not yet saved on disk: a restart could lose it.
          if (blockNumber > finalBlock(chain.settings, head)) {
            waiting = true;
            break;
          }
          minedHash = attempt.tx_hash;
          outcome =
            attempt.kind === 'cancel' ? { kind: 'cancelled', blockNumber, reason: `cancelled by the operator: custody nonce ${row.nonce} used by the zero-value transaction ${attempt.tx_hash}; nothing was paid` }
            : receipt.status === '0x1' ? { kind: 'confirmed', blockNumber }
            : { kind: 'reverted', blockNumber };
          break;
        }
        if (!outcome && !waiting) outcome = { kind: 'lost', reason: `custody nonce ${row.nonce} was used by another transaction; ${row.tx_hash} is not on-chain` };
      } else if (row.escalated_at === null && row.send_attempts >= this.#o.maxSendAttempts && deps.clock.now() - (row.signed_at ?? 0) > this.#o.maxPendingMs) {
        await this.#escalate(row);
        continue;
      }
      if (!outcome) continue;
      const final = outcome;
      const done = await endSentTransfer(deps, row, final, minedHash);
      if (done) {
        ended++;
        if (final.kind !== 'confirmed') this.#o.logger.warn({ transfer: row.id, purpose: row.purpose, outcome: final }, 'custody transfer did not complete');
      }
    }
    return ended;
  }

  /** Ends a queued call unsigned: its deadline passed before its turn. */
  async #expire(tx: Tx, row: CustodyTransferRow, reason: string): Promise<void> {
    await expireQueuedTransfer(tx, this.#o.deps, row, reason, this.#o.deps.clock.now());
    this.#o.logger.warn({ transfer: row.id, purpose: row.purpose, ownerId: row.owner_id, notAfterSecs: row.not_after_secs }, 'custody call expired unsigned');
  }

  /** Hands a transfer past the broadcaster's bounds to the operator, once; it stays SENT and watched. */
  async #escalate(row: CustodyTransferRow): Promise<void> {
    const { deps } = this.#o;
    const reason = `${row.tx_hash} not mined after ${row.send_attempts} sends; still replaceable: the operator may cancel it (POST /admin/v1/custody/transfers/${row.id}/cancel)`;
    const done = await escalateSentTransfer(deps, row, reason);
    if (done) this.#o.logger.warn({ transfer: row.id, purpose: row.purpose, nonce: row.nonce, txHash: row.tx_hash }, 'custody transaction stuck: escalated to the operator');
  }
}
