/** Taker RFQ lifecycle: submit, read, list, cancel, read quotes, accept. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createRfq } from '../../services/rfq/create-rfq.ts';
import { cancelRfq } from '../../services/rfq/cancel-rfq.ts';
import { acceptQuote } from '../../services/rfq/accept-quote.ts';
import { getQuoteForTaker, getRfq, listRfqQuotes, listRfqs } from '../../services/rfq/read-rfqs.ts';
import { errorResponses, PageQuery } from '../schemas/common.ts';
import {
  AcceptRequest, AcceptResponse, CreateRfqRequest, CreateRfqResponse, IdParams, Quote, QuoteIdParams, QuoteStatus, QuotesPage, Rfq, RfqStatus, RfqsPage,
} from '../schemas/rfq.ts';
import type { ApiContext } from '../context.ts';
import { withDeferredClaim } from '../deferred-claim.ts';

export function rfqRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    const tags = ['rfq'];
    const hmac = { auth: 'hmac' as const };

    app.post('/v1/rfq/requests', {
      config: hmac,
      schema: { summary: 'Submit an RFQ', tags, body: CreateRfqRequest, response: { 202: CreateRfqResponse, ...errorResponses } },
    }, async (request, reply) => {
      const { replayed: _replayed, ...created } = await createRfq(deps, request.auth!.accountId, request.body);
      return reply.status(202).send(created);
    });

    app.get('/v1/rfq/requests', {
      config: hmac,
      schema: { summary: "List the taker's RFQs", tags, querystring: Type.Object({ ...PageQuery.properties, status: Type.Optional(RfqStatus) }, { additionalProperties: false }), response: { 200: RfqsPage, ...errorResponses } },
    }, async (request) => listRfqs(deps, request.auth!.accountId, { ...request.query, status: request.query.status }));

    app.get('/v1/rfq/requests/:id', {
      config: hmac,
      schema: { summary: 'One RFQ', tags, params: IdParams, response: { 200: Rfq, ...errorResponses } },
    }, async (request) => getRfq(deps, request.auth!.accountId, request.params.id));

    app.post('/v1/rfq/requests/:id/cancel', {
      config: hmac,
      schema: { summary: 'Cancel an RFQ still in its auction', tags, params: IdParams, response: { 200: Rfq, ...errorResponses } },
    }, async (request) => cancelRfq(deps, request.auth!.accountId, request.params.id));

    app.get('/v1/rfq/requests/:id/quotes', {
      config: hmac,
      schema: { summary: "Quotes on one of the taker's RFQs", tags, params: IdParams, querystring: Type.Object({ ...PageQuery.properties, status: Type.Optional(QuoteStatus) }, { additionalProperties: false }), response: { 200: QuotesPage, ...errorResponses } },
    }, async (request) => listRfqQuotes(deps, request.auth!.accountId, request.params.id, { ...request.query, status: request.query.status }));

    app.post('/v1/rfq/requests/:id/accept', {
      config: { ...hmac, deferTimestampClaim: true },
      schema: { summary: 'Accept a quote', tags, params: IdParams, body: AcceptRequest, response: { 202: AcceptResponse, ...errorResponses } },
    }, async (request, reply) => {
      const auth = request.auth!;
      const { replayed: _replayed, ...accepted } = await withDeferredClaim(context, auth, () => acceptQuote(deps, auth, request.params.id, request.body, auth));
      return reply.status(202).send(accepted);
    });

    app.get('/v1/rfq/quotes/:quoteId', {
      config: hmac,
      schema: { summary: 'One quote (taker view)', tags, params: QuoteIdParams, response: { 200: Quote, ...errorResponses } },
    }, async (request) => getQuoteForTaker(deps, request.auth!.accountId, request.params.quoteId));
  };
}
