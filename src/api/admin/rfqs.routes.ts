/** The operator's RFQ views (DESIGN.md section 12): every account's RFQs with their quotes, makers named. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getAdminRfq, listAdminRfqs } from '../../services/admin/read-rfqs.ts';
import { InstrumentId, PageQuery, UnixMillis, errorResponses } from '../schemas/common.ts';
import { RfqStatus } from '../schemas/rfq.ts';
import { AdminRfq, AdminRfqsPage } from '../schemas/admin-reads.ts';
import type { ApiContext } from '../context.ts';

const AdminRfqQuery = Type.Object(
  {
    ...PageQuery.properties,
    status: Type.Optional(RfqStatus),
    instrumentId: Type.Optional(InstrumentId),
    account: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: "The taker's address." })),
    from: Type.Optional({ ...UnixMillis, minimum: 0, description: 'createdAt at or after (unix ms).' }),
    to: Type.Optional({ ...UnixMillis, minimum: 0, description: 'createdAt before (unix ms).' }),
  },
  { additionalProperties: false },
);

export function adminRfqRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    const admin = { auth: 'admin' as const };
    const tags = ['admin'];

    app.get('/admin/v1/rfqs', {
      config: admin,
      schema: { summary: "List every account's RFQs with their quotes, newest first", tags, querystring: AdminRfqQuery, response: { 200: AdminRfqsPage, ...errorResponses } },
    }, async (request) => listAdminRfqs(deps, request.query));

    app.get('/admin/v1/rfqs/:id', {
      config: admin,
      schema: { summary: 'One RFQ with its quotes and makers', tags, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }), response: { 200: AdminRfq, ...errorResponses } },
    }, async (request) => getAdminRfq(deps, request.params.id));
  };
}
