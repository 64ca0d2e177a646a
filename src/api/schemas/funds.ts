/** Deposits and withdrawals (spec: Deposit, Withdrawal; DESIGN.md sections 4 and 6). */
import { Type } from 'typebox';
import { WITHDRAWAL_STATUSES } from '../../domain/funds/withdrawal-state.ts';
import { DEPOSIT_STATUSES } from '../../domain/funds/deposit-state.ts';
import { DecimalString, EvmAddress, Literals, Nullable, Page, PositiveDecimalString, TokenSymbol, UnixMillis } from './common.ts';

export const DepositStatus = Literals(DEPOSIT_STATUSES);
export const WithdrawalStatus = Literals(WITHDRAWAL_STATUSES);

export const Deposit = Type.Object({
  depositId: Type.String(),
  token: TokenSymbol,
  amount: DecimalString,
  status: DepositStatus,
  txHash: Type.String(),
  createdAt: UnixMillis,
  updatedAt: UnixMillis,
});
export const DepositsPage = Page(Deposit);
export const UnattributedDeposit = Type.Object({ ...Deposit.properties, fromAddress: EvmAddress, blockNumber: Type.Integer(), logIndex: Type.Integer() });
export const UnattributedDepositsPage = Page(UnattributedDeposit);

export const Withdrawal = Type.Object({
  withdrawalId: Type.String(),
  token: TokenSymbol,
  amount: DecimalString,
  status: WithdrawalStatus,
  toAddress: EvmAddress,
  txHash: Type.Optional(Type.String()),
  failureReason: Nullable(Type.String()),
  createdAt: UnixMillis,
  updatedAt: UnixMillis,
});
export const WithdrawalsPage = Page(Withdrawal);

export const CreateWithdrawalRequest = Type.Object(
  { token: TokenSymbol, amount: PositiveDecimalString, idempotencyKey: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))) },
  { additionalProperties: false },
);
export const CreateWithdrawalResponse = Type.Object({ status: WithdrawalStatus, withdrawalId: Type.String() });
export const WithdrawalIdParams = Type.Object({ id: Type.String({ pattern: '^wd_[0-9a-f-]{36}$' }) });
