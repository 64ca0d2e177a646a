/**
 * POST /v1/rfq/withdrawals: a withdrawal of a listed on-chain token from custody to the account's
 * own address. Locks the amount (INSUFFICIENT_BALANCE otherwise) in the same transaction that
 * writes the withdrawal PENDING. The idempotency key is claimed by a unique index, as for RFQs:
 * the same request replays the original, a different request with the key is
 * IDEMPOTENCY_KEY_REUSED, and a concurrent duplicate loses on the index and replays the winner.
 */
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money/index.ts';
import { requestWithdrawalDecision } from '../../domain/funds/withdrawal-state.ts';
import { insertIdempotent } from '../../store/idempotent-insert.ts';
import { lockFunds } from '../../store/ledger.ts';
import { inTransaction } from '../../store/outbox.ts';
import type { ServiceDeps } from '../deps.ts';
import { pushFrames } from '../frames.ts';
import type { WithdrawalRow } from './withdrawal-views.ts';

export interface WithdrawalRequest { token: string; amount: string; idempotencyKey?: string | null | undefined }

export async function requestWithdrawal(deps: ServiceDeps, account: { accountId: string; address: string }, input: WithdrawalRequest) {
  const reference = await deps.refdata.current();
  const token = reference.tokens.get(input.token);
  if (!token) throw new ServiceError('TOKEN_NOT_FOUND', `token ${input.token} is not listed`);
  if (!token.address) throw new ServiceError('TOKEN_NOT_ON_CHAIN', `token ${input.token} has no on-chain address`);
  const amount = parseAmount(input.amount, token.decimals, { field: 'amount' });
  if (amount <= 0n) throw invalidField('amount', 'positive', 'amount must be greater than zero');
  const idempotencyKey = input.idempotencyKey ?? null;
  const fingerprint = JSON.stringify([token.symbol, amount.toString()]);
  const now = deps.clock.now();
  const row: WithdrawalRow = {
    id: deps.ids.withdrawalId(),
    account_id: account.accountId,
    token: token.symbol,
    amount,
    to_address: account.address,
    status: 'PENDING',
    tx_hash: null,
    failure_reason: null,
    idempotency_key: idempotencyKey,
    request_fingerprint: fingerprint,
    created_at: now,
    updated_at: now,
  };
  return inTransaction(deps.db, async (tx) => {
    const original = await insertIdempotent(tx, 'withdrawals', row, 'withdrawalId');
    if (original) return { withdrawalId: original.id, status: original.status, replayed: true };
    await lockFunds(tx, { lockId: deps.ids.uuid(), accountId: account.accountId, token: token.symbol, rail: 'EVM', amount, ownerKind: 'withdrawal', ownerId: row.id, at: now });
    await pushFrames(tx, deps, requestWithdrawalDecision(account.accountId).frames, {}, now);
    return { withdrawalId: row.id, status: row.status, replayed: false };
  });
}
