/**
 * The operator's `/v0` surface (DESIGN.md section 10): every account's v0 orders and withdrawals
 * (the admin page envelope, by status and account), and the per-account spot fee rates `getFees`
 * reports and fills are charged at.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listV0Orders } from '../../services/admin/read-v0-orders.ts';
import { listV0Withdrawals } from '../../services/admin/read-v0-withdrawals.ts';
import { clearV0FeeRates, readV0FeeRates, setV0FeeRates } from '../../services/v0/fee-rates.ts';
import { getAddress } from 'viem';
import { revokeSessions } from '../../services/v0/session.ts';
import { EvmAddress, errorResponses } from '../schemas/common.ts';
import { AdminV0OrdersPage, AdminV0OrdersQuery, AdminV0WithdrawalsPage, AdminV0WithdrawalsQuery, V0FeeRates, V0FeeRatesBody } from '../schemas/admin-v0.ts';
import type { ApiContext } from '../context.ts';

export function adminV0Routes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const admin = { auth: 'admin' as const };
    const tags = ['admin'];
    const params = Type.Object({ address: EvmAddress });

    app.get('/admin/v1/v0/orders', {
      config: admin,
      schema: { summary: "List every account's /v0 orders, newest first", tags, querystring: AdminV0OrdersQuery, response: { 200: AdminV0OrdersPage, ...errorResponses } },
    }, async (request) => listV0Orders(context.service, request.query));

    app.get('/admin/v1/v0/withdrawals', {
      config: admin,
      schema: { summary: "List every account's /v0 withdrawals (venue spotSends), newest first", tags, querystring: AdminV0WithdrawalsQuery, response: { 200: AdminV0WithdrawalsPage, ...errorResponses } },
    }, async (request) => listV0Withdrawals(context.service, request.query));

    app.post('/admin/v1/v0/sessions/revoke', {
      config: admin,
      schema: {
        summary: 'End every /v0 session (JWT) of an address issued until now; its next request is UNAUTHORIZED until it logs in again',
        tags,
        body: Type.Object({ address: EvmAddress }, { additionalProperties: false }),
        response: { 200: Type.Object({ address: EvmAddress, revokedAt: Type.Integer() }), ...errorResponses },
      },
    }, async (request) => revokeSessions(context.v0.deps, getAddress(request.body.address)));

    app.get('/admin/v1/v0/fee-rates/:address', {
      config: admin,
      schema: { summary: "An account's /v0 spot fee rates (its own, or the defaults)", tags, params, response: { 200: V0FeeRates, ...errorResponses } },
    }, async (request) => readV0FeeRates(context.v0.deps, request.params.address));

    app.put('/admin/v1/v0/fee-rates/:address', {
      config: admin,
      schema: { summary: "Set an account's /v0 spot fee rates (fills booked from now on)", tags, params, body: V0FeeRatesBody, response: { 200: V0FeeRates, ...errorResponses } },
    }, async (request) => setV0FeeRates(context.v0.deps, request.params.address, request.body));

    app.delete('/admin/v1/v0/fee-rates/:address', {
      config: admin,
      schema: { summary: "Remove an account's own /v0 fee rates (the defaults apply again)", tags, params, response: { 200: V0FeeRates, ...errorResponses } },
    }, async (request) => clearV0FeeRates(context.v0.deps, request.params.address));
  };
}
