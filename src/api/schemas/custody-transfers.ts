/** The operator's view of the custody broadcaster's transfers (docs/operator-guide.md). */
import { Type } from 'typebox';
import { CUSTODY_TRANSFER_STATUSES } from '../../domain/funds/custody-transfer-state.ts';
import { DecimalString, EvmAddress, Literals, Nullable, Page, TokenSymbol, UnixMillis } from './common.ts';

export const CustodyTransferStatus = Literals(CUSTODY_TRANSFER_STATUSES);
export const CustodyTransferPurpose = Literals(['withdrawal', 'payout', 'xchange', 'approval']);
const TxHash = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' });

export const CustodyTransfer = Type.Object({
  transferId: Type.String(),
  purpose: CustodyTransferPurpose,
  /** The withdrawal id, the quote id (payout, xchange) or the token address (approval). */
  ownerId: Type.String(),
  token: TokenSymbol,
  amount: DecimalString,
  toAddress: EvmAddress,
  status: CustodyTransferStatus,
  nonce: Nullable(Type.Integer({ minimum: 0 })),
  /** The latest signed transaction, or the mined one once the transfer ended. */
  txHash: Nullable(TxHash),
  attempts: Type.Array(Type.Object({ attempt: Type.Integer({ minimum: 0 }), kind: Type.Union([Type.Literal('original'), Type.Literal('replacement'), Type.Literal('cancel')]), txHash: TxHash, signedAt: UnixMillis })),
  sendAttempts: Type.Integer({ minimum: 0 }),
  lastError: Nullable(Type.String()),
  cancelRequestedAt: Nullable(UnixMillis),
  escalatedAt: Nullable(UnixMillis),
  /** A call never signed once the next block is past this unix second (xchange: the swap's expiration). */
  notAfterSecs: Nullable(Type.Integer()),
  createdAt: UnixMillis,
  updatedAt: UnixMillis,
});
export const CustodyTransfersPage = Page(CustodyTransfer);
export const CustodyTransferIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' }) });
