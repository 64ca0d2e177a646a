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
import { endLock, lockFunds, postMovement } from '../../store/ledger.ts';
import { requireAccount } from './accounts.ts';
import type { V0Deps } from './v0-deps.ts';

/** The tokens `initiateWithdrawal` accepts (spec: `USDC` or `HYPE`). */
export const WITHDRAWAL_TOKENS = ['USDC', 'HYPE'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function initiateWithdrawal(deps: V0Deps, identity: string, input: { tokenSymbol?: unknown; amount?: unknown }): Promise<{ withdrawalId: string }> {
  if (typeof input.tokenSymbol !== 'string' || !WITHDRAWAL_TOKENS.includes(input.tokenSymbol)) throw validationError('tokenSymbol', `must be one of ${WITHDRAWAL_TOKENS.join(', ')}`);
  const token = input.tokenSymbol;
  const db = deps.service.db;
  const tokenRow = await db.selectFrom('tokens').select('decimals').where('symbol', '=', token).executeTakeFirst();
  if (!tokenRow) throw validationError('tokenSymbol', 'is not a token this service holds');
  const amount = parseV0Decimal(input.amount, tokenRow.decimals, 'amount');
  const accountId = await requireAccount(db, identity);
  if (!(await deps.venue.reachable())) throw new ServiceError('SERVICE_UNAVAILABLE', 'the withdrawal service cannot reach the venue now; try again later');
  const id = randomUUID();
  const now = deps.service.clock.now();
  await db.transaction().execute(async (tx) => {
    await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
    const pending = await tx.selectFrom('v0_withdrawals').select('id').where('account_id', '=', accountId).where('state', '=', 'pending').executeTakeFirst();
    if (pending) throw new ServiceError('CONFLICT', 'a withdrawal is already in progress');
    await tx.insertInto('v0_withdrawals').values({ id, account_id: accountId, token, amount, to_address: identity, state: 'pending', tx_hash: null, error_message: null, created_at: now, updated_at: now }).execute();
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
  const row = await deps.service.db.selectFrom('v0_withdrawals').selectAll().where('id', '=', withdrawalId.toLowerCase()).where('account_id', '=', accountId).executeTakeFirst();
  if (!row) throw new ServiceError('NOT_FOUND', 'no such withdrawal');
  return { withdrawal: view(row) };
}

export async function getUserWithdrawals(deps: V0Deps, identity: string) {
  const accountId = await requireAccount(deps.service.db, identity);
  const rows = await deps.service.db.selectFrom('v0_withdrawals').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100).execute();
  return { withdrawals: rows.map(view) };
}

/** The venue refused the spotSend: `failed` with its message, the lock released. */
export async function failWithdrawal(deps: V0Deps, id: string, message: string): Promise<void> {
  const now = deps.service.clock.now();
  await deps.service.db.transaction().execute(async (tx) => {
    const row = await tx.updateTable('v0_withdrawals').set({ state: 'failed', error_message: message.slice(0, 500), updated_at: now }).where('id', '=', id).where('state', '=', 'pending').returning('id').executeTakeFirst();
    if (row) await endLock(tx, 'v0_withdrawal', id, 'release', 'withdrawal failed', now);
  });
}

/**
 * The omnibus's transfer to `destination` appeared in its ledger updates: the matching pending
 * withdrawal completes (its lock consumed, WITHDRAWAL postings). Returns false when none matches.
 */
export async function completeWithdrawal(deps: V0Deps, transfer: { destination: string; token: string; amount: bigint; hash: string; venueFee: bigint; venueFeeToken: string }): Promise<boolean> {
  const now = deps.service.clock.now();
  return deps.service.db.transaction().execute(async (tx) => {
    const row = await tx
      .selectFrom('v0_withdrawals')
      .selectAll()
      .where('to_address', '=', transfer.destination)
      .where('token', '=', transfer.token)
      .where('amount', '=', transfer.amount)
      .where('state', '=', 'pending')
      .orderBy('created_at')
      .forUpdate()
      .executeTakeFirst();
    if (!row) return false;
    await tx.updateTable('v0_withdrawals').set({ state: 'completed', tx_hash: transfer.hash, updated_at: now }).where('id', '=', row.id).execute();
    await endLock(tx, 'v0_withdrawal', row.id, 'consume', 'withdrawal completed', now);
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
