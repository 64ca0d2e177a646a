/** The operator's view of a custody transfer: what custody sends, at which nonce, every signed attempt. */
import type { Selectable } from 'kysely';
import { formatAmount } from '../../domain/money/index.ts';
import type { CustodyTxAttemptsTable } from '../../store/schema.ts';
import type { ReferenceSnapshot } from '../../store/reference-data.ts';
import type { CustodyTransferRow } from './custody-transfers.ts';

export type CustodyTxAttemptRow = Selectable<CustodyTxAttemptsTable>;

export function custodyTransferView(row: CustodyTransferRow, attempts: readonly CustodyTxAttemptRow[], reference: ReferenceSnapshot) {
  return {
    transferId: row.id,
    purpose: row.purpose,
    ownerId: row.owner_id,
    token: row.token,
    amount: formatAmount(row.amount, reference.tokens.get(row.token)?.decimals ?? 0),
    toAddress: row.to_address,
    status: row.status,
    nonce: row.nonce,
    txHash: row.tx_hash,
    attempts: attempts.map((a) => ({ attempt: a.attempt, kind: a.kind, txHash: a.tx_hash, signedAt: a.signed_at })),
    sendAttempts: row.send_attempts,
    lastError: row.last_error,
    cancelRequestedAt: row.cancel_requested_at,
    escalatedAt: row.escalated_at,
    notAfterSecs: row.not_after_secs,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
