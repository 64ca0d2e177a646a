/**
 * Operator surface for funds (DESIGN.md section 6): withdrawals, unattributed deposits, and the
 * custody broadcaster's transfers (list; cancel of a stuck one), unpaid promised payouts (list; retry),
 * settlement anomalies (mark handled; replay a quarantined chain log).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listUnattributedDeposits } from '../../services/funds/read-deposits.ts';
import { listWithdrawals } from '../../services/funds/read-withdrawals.ts';
import { approveWithdrawal, rejectWithdrawal, resolveWithdrawal } from '../../services/funds/decide-withdrawal.ts';
import { listCustodyTransfers } from '../../services/funds/read-custody-transfers.ts';
import { cancelCustodyTransfer } from '../../services/funds/cancel-custody-transfer.ts';
import { resolveSettlementAnomaly } from '../../services/funds/resolve-anomaly.ts';
import { replaySettlementAnomaly } from '../../services/funds/replay-anomaly.ts';
import { listUnpaidPayouts, retryPayout } from '../../services/funds/payout-debts.ts';
import { Nullable, PageQuery, errorResponses } from '../schemas/common.ts';
import { UnattributedDepositsPage, Withdrawal, WithdrawalIdParams, WithdrawalStatus, WithdrawalsPage } from '../schemas/funds.ts';
import { CustodyTransfer, CustodyTransferIdParams, CustodyTransferPurpose, CustodyTransferStatus, CustodyTransfersPage } from '../schemas/custody-transfers.ts';
import type { ApiContext } from '../context.ts';

export function adminFundsRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    const admin = { auth: 'admin' as const };
    const tags = ['admin'];

    app.get('/admin/v1/withdrawals', {
      config: admin,
      schema: { summary: 'List withdrawals', tags, querystring: Type.Object({ ...PageQuery.properties, status: Type.Optional(WithdrawalStatus) }, { additionalProperties: false }), response: { 200: WithdrawalsPage, ...errorResponses } },
    }, async (request) => listWithdrawals(deps, { status: request.query.status }, request.query));

    app.post('/admin/v1/withdrawals/:id/approve', {
      config: admin,
      schema: { summary: 'Approve a pending withdrawal', tags, params: WithdrawalIdParams, response: { 200: Withdrawal, ...errorResponses } },
    }, async (request) => approveWithdrawal(deps, request.params.id));

    app.post('/admin/v1/withdrawals/:id/reject', {
      config: { ...admin, optionalBody: true },
      schema: {
        summary: 'Reject a pending withdrawal (funds released)',
        tags,
        params: WithdrawalIdParams,
        body: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false })),
        response: { 200: Withdrawal, ...errorResponses },
      },
    }, async (request) => rejectWithdrawal(deps, request.params.id, request.body?.reason));

    app.post('/admin/v1/withdrawals/:id/resolve', {
      config: admin,
      schema: {
        summary: 'Resolve an UNRESOLVED withdrawal',
        tags,
        params: WithdrawalIdParams,
        body: Type.Object(
          { outcome: Type.Union([Type.Literal('COMPLETED'), Type.Literal('FAILED')]), txHash: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })) },
          { additionalProperties: false },
        ),
        response: { 200: Withdrawal, ...errorResponses },
      },
    }, async (request) => resolveWithdrawal(deps, request.params.id, request.body));

    app.get('/admin/v1/custody/transfers', {
      config: admin,
      schema: {
        summary: 'List custody transfers (withdrawals, payouts, xchange executions, approvals) with every signed attempt',
        tags,
        querystring: Type.Object({ ...PageQuery.properties, status: Type.Optional(CustodyTransferStatus), purpose: Type.Optional(CustodyTransferPurpose) }, { additionalProperties: false }),
        response: { 200: CustodyTransfersPage, ...errorResponses },
      },
    }, async (request) => listCustodyTransfers(deps, { status: request.query.status, purpose: request.query.purpose }, request.query));

    app.post('/admin/v1/custody/transfers/:id/cancel', {
      config: admin,
      schema: {
        summary: 'Cancel a stuck custody transaction (a zero-value replacement at its nonce)',
        tags,
        params: CustodyTransferIdParams,
        response: { 200: CustodyTransfer, ...errorResponses },
      },
    }, async (request) => cancelCustodyTransfer(deps, request.params.id));

    app.get('/admin/v1/payouts/unpaid', {
      config: admin,
      schema: {
        summary: 'Promised payouts still owed: the last payout transfer of each ended REVERTED, CANCELLED or UNRESOLVED (the debt stays in maker_settlement)',
        tags,
        response: { 200: Type.Object({ items: Type.Array(CustodyTransfer) }), ...errorResponses },
      },
    }, async () => listUnpaidPayouts(deps));

    app.post('/admin/v1/payouts/:quoteId/retry', {
      config: admin,
      schema: {
        summary: 'Queue an unpaid promised payout again (same maker address, token and amount)',
        tags,
        params: Type.Object({ quoteId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
        response: { 200: CustodyTransfer, ...errorResponses },
      },
    }, async (request) => retryPayout(deps, request.params.quoteId));

    const AnomalyLogKey = { txHash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }), logIndex: Type.Integer({ minimum: 0 }) };
    const Anomaly = Type.Object({
      txHash: Type.String(), logIndex: Type.Integer(), kind: Type.String(), quoteId: Nullable(Type.String()), rfqId: Nullable(Type.String()),
      detail: Type.Record(Type.String(), Type.Unknown()), createdAt: Type.Integer(), resolvedAt: Nullable(Type.Integer()), resolution: Nullable(Type.String()),
    });

    app.post('/admin/v1/settlement-anomalies/resolve', {
      config: admin,
      schema: {
        summary: 'Mark a settlement anomaly (a quarantined chain log among them) handled',
        tags,
        body: Type.Object({ ...AnomalyLogKey, note: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false }),
        response: { 200: Anomaly, ...errorResponses },
      },
    }, async (request) => resolveSettlementAnomaly(deps, request.body));

    app.post('/admin/v1/settlement-anomalies/replay', {
      config: admin,
      schema: {
        summary: 'Replay a quarantined chain log through its handler once its cause is fixed (once: then REPLAYED)',
        tags,
        body: Type.Object(AnomalyLogKey, { additionalProperties: false }),
        response: { 200: Anomaly, ...errorResponses },
      },
    }, async (request) => replaySettlementAnomaly(deps, request.body));

    app.get('/admin/v1/deposits/unattributed', {
      config: admin,
      schema: { summary: 'List deposits from addresses with no account', tags, querystring: PageQuery, response: { 200: UnattributedDepositsPage, ...errorResponses } },
    }, async (request) => listUnattributedDeposits(deps, request.query));
  };
}
