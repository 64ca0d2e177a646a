/**
 * `/v0` withdrawals: a request locks the amount (at most one pending per account, CONFLICT), the
 * venue worker sends a `spotSend` from the omnibus to the identity's venue address, and the ledger
 * follower completes it when the transfer shows in the omnibus's ledger updates. A venue refusal
 * fails it and releases the lock. Amounts are in the ledger's token decimals.
 */
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money/index.ts';
import { parseV0Decimal, validationError } from '../../domain/v0/venue-grid.ts';
import { decideV0Withdrawal, v0WithdrawalTransition } from '../../domain/v0/withdrawal-status.ts';
import { lockAccountRow } from '../../store/accounts.ts';
import { endLock, lockFunds, postMovement } from '../../store/ledger.ts';
import { tokenDecimalsOf } from '../../store/reference-writes.ts';
import { insertV0Withdrawal, latestV0WithdrawalsOfAccount, lockPendingV0WithdrawalPaidBy, pendingV0WithdrawalOf, v0WithdrawalOfAccount } from '../../store/v0-withdrawal-rows.ts';
import { writeV0WithdrawalState, writeV0WithdrawalStateIfStill } from '../../store/v0-withdrawal-status.ts';
import { requireAccount } from './accounts.ts';
import type { V0Deps } from './v0-deps.ts';

/** The tokens `initiateWithdrawal` accepts (spec: `USDC` or `HYPE`). */
export const WITHDRAWAL_TOKENS = ['USDC', 'HYPE'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function initiateWithdrawal(deps: V0Deps, identity: string, input: { tokenSymbol?: unknown; amount?: unknown }): Promise<{ withdrawalId: string }> {
  if (typeof input.tokenSymbol !== 'string' || !WITHDRAWAL_TOKENS.includes(input.tokenSymbol)) throw validationError('tokenSymbol', `must be one of ${WITHDRAWAL_TOKENS.join(', ')}`);
  const token = input.tokenSymbol;
  const db = deps.service.db;
  const [tokenRow] = await tokenDecimalsOf(db, [token]);
  if (!tokenRow) throw validationError('tokenSymbol', 'is not a token this service holds');
  const amount = parseV0Decimal(input.amount, tokenRow.decimals, 'amount');
  const accountId = await requireAccount(db, identity);
  if (!(await deps.venue.reachable())) throw new ServiceError('SERVICE_UNAVAILABLE', 'the withdrawal service cannot reach the venue now; try again later');
  const id = randomUUID();
  const now = deps.service.clock.now();
  await db.transaction().execute(async (tx) => {
    await lockAccountRow(tx, accountId);
    if ((await pendingV0WithdrawalOf(tx, accountId)) !== undefined) throw new ServiceError('CONFLICT', 'a withdrawal is already in progress');
    await insertV0Withdrawal(tx, { id, account_id: accountId, token, amount, to_address: identity, state: 'pending', tx_hash: null, error_message: null, created_at: now, updated_at: now });
    try {
      await lockFunds(tx, { lockId: deps.service.ids.uuid(), accountId, token, rail: 'VENUE', amount, ownerKind: 'v0_withdrawal', ownerId: id, at: now });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'INSUFFICIENT_BALANCE') throw validationError('amount', 'exceeds the available balance');
      throw error;
    }
  });
  void deps.venue.wake();
  return { withdrawalId: id };
}

function view(row: { id: string; token: string; amount: bigint; state: string; tx_hash: string | null; error_message: string | null; created_at: number; updated_at: number }) {
  return {
    withdrawalId: row.id,
    token: row.token,
    amount: row.amount.toString(),
    state: row.state,
    txHash: row.state === 'completed' ? row.tx_hash : null,
    errorMessage: row.state === 'failed' ? row.error_message : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function getWithdrawalStatus(deps: V0Deps, identity: string, withdrawalId: unknown) {
  if (typeof withdrawalId !== 'string' || !UUID.test(withdrawalId)) throw validationError('withdrawalId', 'must be the UUID initiateWithdrawal returned');
  const accountId = await requireAccount(deps.service.db, identity);
  const row = await v0WithdrawalOfAccount(deps.service.db, accountId, withdrawalId.toLowerCase());
  if (!row) throw new ServiceError('NOT_FOUND', 'no such withdrawal');
  return { withdrawal: view(row) };
}

export async function getUserWithdrawals(deps: V0Deps, identity: string) {
  const accountId = await requireAccount(deps.service.db, identity);
  const rows = await latestV0WithdrawalsOfAccount(deps.service.db, accountId);
  return { withdrawals: rows.map(view) };
}

/** The venue refused the spotSend: `failed` with its message, the lock released. */
export async function failWithdrawal(deps: V0Deps, id: string, message: string): Promise<void> {
  const now = deps.service.clock.now();
  await deps.service.db.transaction().execute(async (tx) => {
    const { lock, ...transition } = v0WithdrawalTransition('fail');
    const failed = await writeV0WithdrawalStateIfStill(tx, { id, ...transition, fields: { error_message: message.slice(0, 500) } }, now);
    if (failed) await endLock(tx, 'v0_withdrawal', id, lock, 'withdrawal failed', now);
  });
}

/**
 * The omnibus's transfer to `destination` appeared in its ledger updates: the matching pending
 * withdrawal completes (its lock consumed, WITHDRAWAL postings). Returns false when none matches.
 */
export async function completeWithdrawal(deps: V0Deps, transfer: { destination: string; token: string; amount: bigint; hash: string; venueFee: bigint; venueFeeToken: string }): Promise<boolean> {
  const now = deps.service.clock.now();
  return deps.service.db.transaction().execute(async (tx) => {
    const row = await lockPendingV0WithdrawalPaidBy(tx, transfer);
    if (!row) return false;
    const decision = decideV0Withdrawal(row.state, 'complete');
    await writeV0WithdrawalState(tx, { id: row.id, from: row.state, to: decision.state, fields: { tx_hash: transfer.hash } }, now);
    await endLock(tx, 'v0_withdrawal', row.id, decision.lock, 'withdrawal completed', now);
    const base = { rail: 'VENUE' as const, source: 'WITHDRAWAL' as const };
    const postings = [
      { ...base, book: 'user' as const, accountId: row.account_id, token: row.token, delta: -row.amount, fromLocked: true },
      { ...base, book: 'custody' as const, token: row.token, delta: row.amount },
      ...(transfer.venueFee > 0n
        ? [{ ...base, book: 'fees' as const, token: transfer.venueFeeToken, delta: -transfer.venueFee }, { ...base, book: 'custody' as const, token: transfer.venueFeeToken, delta: transfer.venueFee }]
        : []),
    ];
    await postMovement(tx, { movementId: deps.service.ids.uuid(), kind: 'v0_withdrawal', reference: row.id, postings, postingIds: postings.map(() => deps.service.ids.uuid()), at: now });
    return true;
  });
}

/** The decimal string of a withdrawal's amount at the venue. */
export function withdrawalVenueAmount(amount: bigint, ledgerDecimals: number): string {
  return formatAmount(amount, ledgerDecimals);
}
