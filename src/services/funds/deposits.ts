/**
 * Deposits (spec: Deposit; DESIGN.md section 5). A transfer of a listed token into custody from
 * an account's own address credits that account (ledger DEPOSIT, custody -X); from an address
 * with no account it is credited to the `unattributed` book and listed for the operator.
 * One row per (txHash, logIndex): the head scanner records it PENDING, the chain follower
 * completes it exactly once in the step that makes it final.
 */
import { getAddress } from 'viem';
import type { Selectable } from 'kysely';
import { finaliseDeposit, transitionDeposit } from '../../domain/funds/deposit-state.ts';
import { formatAmount } from '../../domain/money/index.ts';
import { depositPostings } from '../../domain/ledger/index.ts';
import { accountIdByAddress } from '../../store/accounts.ts';
import { sharedCursorBlock } from '../../store/chain-cursor.ts';
import { insertDeposit, insertDepositUnlessKnown, lockDepositOfLog, lockPendingDepositsInBlocks, updateDeposit } from '../../store/deposit-records.ts';
import { postMovement } from '../../store/ledger.ts';
import type { DepositsTable } from '../../store/schema.ts';
import type { ReferenceSnapshot } from '../../store/reference-data.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { pushFrames } from '../frames.ts';

export type DepositRow = Selectable<DepositsTable>;

export interface ObservedTransfer {
  token: string;
  from: string;
  amount: bigint;
  /** Lowercase 0x hex. */
  txHash: string;
  logIndex: number;
  blockNumber: number;
}

async function accountOf(tx: Tx, address: string): Promise<string | null> {
  return accountIdByAddress(tx, getAddress(address));
}

/**
 * Records a transfer seen at the head (not final) as PENDING; a no-op if it is already known or
 * its block is already final (the follower decides those). The follower's cursor row is read
 * FOR SHARE, so a step cannot pass this block between the check and the insert.
 */
export async function recordPendingDeposit(tx: Tx, deps: ServiceDeps, transfer: ObservedTransfer, cursorName = 'main'): Promise<boolean> {
  const cursorBlock = await sharedCursorBlock(tx, cursorName);
  if (cursorBlock !== null && cursorBlock >= transfer.blockNumber) return false;
  const now = deps.clock.now();
  return insertDepositUnlessKnown(tx, {
    id: deps.ids.depositId(),
    account_id: await accountOf(tx, transfer.from),
    from_address: getAddress(transfer.from),
    token: transfer.token,
    amount: transfer.amount,
    status: 'PENDING',
    tx_hash: transfer.txHash,
    log_index: transfer.logIndex,
    block_number: transfer.blockNumber,
    movement_id: null,
    created_at: now,
    updated_at: now,
  });
}

/** Completes and credits a final transfer, once: a second call for the same log does nothing. */
export async function creditDeposit(tx: Tx, deps: ServiceDeps, transfer: ObservedTransfer, now: number): Promise<boolean> {
  const existing = await lockDepositOfLog(tx, transfer.txHash, transfer.logIndex);
  if (existing?.status === 'COMPLETED') return false;
  const accountId = await accountOf(tx, transfer.from);
  const decision = finaliseDeposit({ status: existing?.status ?? null, accountId });
  const movementId = deps.ids.uuid();
  await postMovement(tx, {
    movementId,
    kind: 'DEPOSIT',
    reference: `${transfer.txHash}:${transfer.logIndex}`,
    at: now,
    postingIds: [deps.ids.uuid(), deps.ids.uuid()],
    postings: depositPostings(accountId, { token: transfer.token, amount: transfer.amount }),
  });
  const values = {
    account_id: accountId,
    from_address: getAddress(transfer.from),
    token: transfer.token,
    amount: transfer.amount,
    status: decision.status,
    block_number: transfer.blockNumber,
    movement_id: movementId,
    updated_at: now,
  };
  if (existing) {
    await updateDeposit(tx, existing.id, values);
  } else {
    await insertDeposit(tx, { id: deps.ids.depositId(), tx_hash: transfer.txHash, log_index: transfer.logIndex, created_at: now, ...values });
  }
  await pushFrames(tx, deps, decision.frames, {}, now);
  return true;
}

/**
 * PENDING deposits in blocks [fromBlock, toBlock] that the now-final chain does not hold as
 * deposits (`finalKeys`: `txHash:logIndex`) end FAILED: their block was reorganised away, or the
 * transfer turned out to be settlement.
 */
export async function failVanishedDeposits(tx: Tx, range: { fromBlock: number; toBlock: number }, finalKeys: Set<string>, now: number): Promise<number> {
  const pending = await lockPendingDepositsInBlocks(tx, range);
  let failed = 0;
  for (const row of pending) {
    if (finalKeys.has(`${row.tx_hash}:${row.log_index}`)) continue;
    await updateDeposit(tx, row.id, { status: transitionDeposit(row.status, 'vanish'), updated_at: now });
    failed++;
  }
  return failed;
}

export function depositView(row: DepositRow, reference: ReferenceSnapshot) {
  return {
    depositId: row.id,
    token: row.token,
    amount: formatAmount(row.amount, reference.tokens.get(row.token)?.decimals ?? 0),
    status: row.status,
    txHash: row.tx_hash,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
