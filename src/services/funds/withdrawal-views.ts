/** Wire views of withdrawals (spec: Withdrawal) and their balance frames. */
import { formatAmount } from '../../domain/money/index.ts';
import type { Selectable } from 'kysely';
import type { WithdrawalsTable } from '../../store/schema.ts';
import type { ReferenceSnapshot } from '../../store/reference-data.ts';

export type WithdrawalRow = Selectable<WithdrawalsTable>;

export function withdrawalView(row: WithdrawalRow, reference: ReferenceSnapshot) {
  return {
    withdrawalId: row.id,
    token: row.token,
    amount: formatAmount(row.amount, reference.tokens.get(row.token)?.decimals ?? 0),
    status: row.status,
    toAddress: row.to_address,
    ...(row.tx_hash ? { txHash: row.tx_hash } : {}),
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
