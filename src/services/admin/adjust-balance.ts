/**
 * POST /admin/v1/balances/adjust: an ADJUSTMENT movement between the user's book and the
 * adjustments book. A debit that would take `available` below zero is refused.
 */
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { formatAmount, parseAmount } from '../../domain/money/index.ts';
import { ensureAccount } from '../../store/accounts.ts';
import { postMovement, readBalanceRow, type Rail } from '../../store/ledger.ts';
import { inTransaction } from '../../store/outbox.ts';
import { pushBalances } from '../frames.ts';
import type { ServiceDeps } from '../deps.ts';
import { normaliseAddress } from './makers.ts';

export interface AdjustInput { address: string; token: string; amount: string; rail?: Rail; memo: string }

export async function adjustBalance(deps: ServiceDeps, input: AdjustInput) {
  const address = normaliseAddress(input.address, 'address');
  const reference = await deps.refdata.current();
  const token = reference.tokens.get(input.token);
  if (!token) throw new ServiceError('TOKEN_NOT_FOUND', `token ${input.token} is not listed`);
  const delta = parseAmount(input.amount, token.decimals, { field: 'amount', signed: true });
  if (delta === 0n) throw invalidField('amount', 'zero', 'amount must not be zero');
  const rail: Rail = input.rail ?? 'EVM';
  const now = deps.clock.now();
  const movementId = deps.ids.uuid();
  return inTransaction(deps.db, async (tx) => {
    const accountId = await ensureAccount(tx, address, deps.ids.uuid(), now);
    await postMovement(tx, {
      movementId,
      kind: 'ADJUSTMENT',
      memo: input.memo,
      at: now,
      postingIds: [deps.ids.uuid(), deps.ids.uuid()],
      postings: [
        { book: 'user', accountId, token: token.symbol, rail, delta, source: 'ADJUSTMENT' },
        { book: 'adjustments', token: token.symbol, rail, delta: -delta, source: 'ADJUSTMENT' },
      ],
    });
    pushBalances(tx, deps, accountId, now);
    const row = await readBalanceRow(tx, accountId, token.symbol, rail);
    return {
      movementId,
      accountId,
      balance: {
        token: token.symbol,
        rail,
        available: formatAmount(row.available, token.decimals),
        locked: formatAmount(row.locked, token.decimals),
        total: formatAmount(row.available + row.locked, token.decimals),
      },
    };
  });
}
