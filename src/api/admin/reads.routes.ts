/**
 * Operator reads the console (and an operator's scripts) need beyond DESIGN.md section 6's table:
 * tokens, instruments, every deposit, a maker's failures and suspension state.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listInstruments, listTokens } from '../../services/admin/read-reference-data.ts';
import { listAllDeposits } from '../../services/admin/read-deposits.ts';
import { listMakerFailures } from '../../services/admin/maker-failures.ts';
import { EvmAddress, PageQuery, errorResponses } from '../schemas/common.ts';
import { DepositStatus } from '../schemas/funds.ts';
import { AdminDepositsPage, InstrumentView, MakerFailures, TokenView } from '../schemas/admin-reads.ts';
import type { ApiContext } from '../context.ts';

export function adminReadRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    const admin = { auth: 'admin' as const };
    const tags = ['admin'];

    app.get('/admin/v1/tokens', {
      config: admin,
      schema: { summary: 'List tokens', tags, response: { 200: Type.Object({ tokens: Type.Array(TokenView) }), ...errorResponses } },
    }, async () => ({ tokens: await listTokens(deps) }));

    app.get('/admin/v1/instruments', {
      config: admin,
      schema: { summary: 'List instruments, disabled ones included', tags, response: { 200: Type.Object({ instruments: Type.Array(InstrumentView) }), ...errorResponses } },
    }, async () => ({ instruments: await listInstruments(deps) }) as never);

    app.get('/admin/v1/deposits', {
      config: admin,
      schema: {
        summary: 'List every deposit, attributed or not, newest first',
        tags,
        querystring: Type.Object({ ...PageQuery.properties, status: Type.Optional(DepositStatus) }, { additionalProperties: false }),
        response: { 200: AdminDepositsPage, ...errorResponses },
      },
    }, async (request) => listAllDeposits(deps, request.query) as never);

    app.get('/admin/v1/makers/:address/failures', {
      config: admin,
      schema: {
        summary: "A maker's settlement failures (newest first) and suspension state",
        tags,
        params: Type.Object({ address: EvmAddress }),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })) }, { additionalProperties: false }),
        response: { 200: MakerFailures, ...errorResponses },
      },
    }, async (request) => listMakerFailures(deps, request.params.address, request.query.limit ?? 50));
  };
}
