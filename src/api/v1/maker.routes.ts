/** The maker REST surface: open RFQs, quote and re-quote, own quotes, cancel. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { submitQuote } from '../../services/rfq/submit-quote.ts';
import { cancelQuote } from '../../services/rfq/cancel-quote.ts';
import { listMakerQuotes, listOpenRfqs } from '../../services/rfq/read-maker.ts';
import { withDeferredClaim } from '../deferred-claim.ts';
import { errorResponses, PageQuery } from '../schemas/common.ts';
import { CreateQuoteRequest, CreateQuoteResponse, MakerQuote, MakerQuotesPage, OpenRfqsPage, QuoteIdParams, QuoteStatus } from '../schemas/rfq.ts';
import type { ApiContext } from '../context.ts';

export function makerRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    const tags = ['maker'];
    const maker = { auth: 'maker' as const };

    for (const path of ['/v1/rfq/requests/open', '/v1/rfq/maker/requests']) {
      app.get(path, {
        config: maker,
        schema: { summary: path === '/v1/rfq/requests/open' ? 'Open RFQs this maker may quote' : 'Open RFQs this maker may quote (alias)', tags, querystring: PageQuery, response: { 200: OpenRfqsPage, ...errorResponses } },
      }, async (request) => listOpenRfqs(deps, request.auth!.accountId, request.query));
    }

    app.post('/v1/rfq/quotes', {
      config: { ...maker, deferTimestampClaim: true },
      schema: { summary: 'Submit a quote or re-quote', tags, body: CreateQuoteRequest, response: { 202: CreateQuoteResponse, ...errorResponses } },
    }, async (request, reply) => {
      const auth = request.auth!;
      return reply.status(202).send(await withDeferredClaim(context, auth, () => submitQuote(deps, { accountId: auth.accountId, address: auth.address }, request.body, auth)));
    });

    app.get('/v1/rfq/quotes', {
      config: maker,
      schema: {
        summary: "The maker's quotes",
        tags,
        querystring: Type.Object({ ...PageQuery.properties, status: Type.Optional(Type.Array(QuoteStatus, { maxItems: 7 })) }, { additionalProperties: false }),
        response: { 200: MakerQuotesPage, ...errorResponses },
      },
    }, async (request) => listMakerQuotes(deps, request.auth!.accountId, { ...request.query, status: request.query.status }));

    app.post('/v1/rfq/quotes/:quoteId/cancel', {
      config: maker,
      schema: { summary: 'Cancel a quote', tags, params: QuoteIdParams, response: { 200: MakerQuote, ...errorResponses } },
    }, async (request) => cancelQuote(deps, request.auth!.accountId, request.params.quoteId));
  };
}
