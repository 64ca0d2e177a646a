/**
 * Operator reads the console (and an operator's scripts) need beyond DESIGN.md section 6's table:
 * tokens, instruments, every deposit, a maker's failures and suspension state, perp executions.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listInstruments, listTokens } from '../../services/admin/read-reference-data.ts';
import { listAllDeposits } from '../../services/admin/read-deposits.ts';
import { listMakerFailures } from '../../services/admin/maker-failures.ts';
import { getPerpExecution, listPerpExecutions } from '../../services/admin/read-perp-executions.ts';
import { EvmAddress, PageQuery, errorResponses } from '../schemas/common.ts';
import { DepositStatus } from '../schemas/funds.ts';
import { AdminDepositsPage, InstrumentView, MakerFailures, TokenView } from '../schemas/admin-reads.ts';
import { PerpExecution, PerpExecutionPhase, PerpExecutionsPage } from '../schemas/perp-executions.ts';
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
    }, async () => ({ instruments: await listInstruments(deps) }));

    app.get('/admin/v1/deposits', {
      config: admin,
      schema: {
        summary: 'List every deposit, attributed or not, newest first',
        tags,
        querystring: Type.Object({ ...PageQuery.properties, status: Type.Optional(DepositStatus) }, { additionalProperties: false }),
        response: { 200: AdminDepositsPage, ...errorResponses },
      },
    }, async (request) => listAllDeposits(deps, request.query));

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

    app.get('/admin/v1/perp/executions', {
      config: admin,
      schema: {
        summary: 'List perp executions newest first, with their RFQ outcome and every venue call',
        tags,
        querystring: Type.Object({ ...PageQuery.properties, phase: Type.Optional(PerpExecutionPhase), rfqId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false }),
        response: { 200: PerpExecutionsPage, ...errorResponses },
      },
    }, async (request) => listPerpExecutions(deps, request.query));

    app.get('/admin/v1/perp/executions/:id', {
      config: admin,
      schema: { summary: 'One perp execution with every venue call', tags, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }), response: { 200: PerpExecution, ...errorResponses } },
    }, async (request) => getPerpExecution(deps, request.params.id));
  };
}
