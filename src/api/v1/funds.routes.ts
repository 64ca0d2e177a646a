/** The account's deposits and withdrawals (DESIGN.md section 4, "Listings added"). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listDeposits } from '../../services/funds/read-deposits.ts';
import { requestWithdrawal } from '../../services/funds/request-withdrawal.ts';
import { getWithdrawal, listWithdrawals } from '../../services/funds/read-withdrawals.ts';
import { PageQuery, errorResponses } from '../schemas/common.ts';
import { CreateWithdrawalRequest, CreateWithdrawalResponse, DepositsPage, Withdrawal, WithdrawalIdParams, WithdrawalsPage } from '../schemas/funds.ts';
import type { ApiContext } from '../context.ts';

export function fundsRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    const tags = ['funds'];
    const hmac = { auth: 'hmac' as const };

    app.get('/v1/rfq/deposits', {
      config: hmac,
      schema: { summary: "List the account's deposits", tags, querystring: PageQuery, response: { 200: DepositsPage, ...errorResponses } },
    }, async (request) => listDeposits(deps, request.auth!.accountId, request.query));

    app.post('/v1/rfq/withdrawals', {
      config: hmac,
      schema: { summary: 'Request a withdrawal to the account address', tags, body: CreateWithdrawalRequest, response: { 202: CreateWithdrawalResponse, ...errorResponses } },
    }, async (request, reply) => {
      const { replayed: _replayed, ...created } = await requestWithdrawal(deps, request.auth!, request.body);
      return reply.status(202).send(created);
    });

    app.get('/v1/rfq/withdrawals', {
      config: hmac,
      schema: { summary: "List the account's withdrawals", tags, querystring: PageQuery, response: { 200: WithdrawalsPage, ...errorResponses } },
    }, async (request) => listWithdrawals(deps, { accountId: request.auth!.accountId }, request.query));

    app.get('/v1/rfq/withdrawals/:id', {
      config: hmac,
      schema: { summary: 'One withdrawal', tags, params: WithdrawalIdParams, response: { 200: Withdrawal, ...errorResponses } },
    }, async (request) => getWithdrawal(deps, request.auth!.accountId, request.params.id));
  };
}
