/**
 * Market-maker protection (DESIGN.md section 11): a maker's per-instrument limits, their list, and
 * the reset after a trip; and (section 15) its kill switches, cancel-all and the dead man's switch,
 * and its scorecard.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listProtections, putProtection, resetProtection } from '../../services/protection/protection-settings.ts';
import { cancelAllQuotes } from '../../services/protection/cancel-all-quotes.ts';
import { armCancelAllAfter, readCancelAllAfter } from '../../services/protection/dead-mans-switch.ts';
import { ownScorecard } from '../../services/conduct/maker-scorecard.ts';
import { Scorecard, ScorecardQuery } from '../schemas/scorecard.ts';
import { errorResponses } from '../schemas/common.ts';
import { CancelAllAfter, CancelAllAfterRequest, CancelAllRequest, CancelAllResponse, Protection, ProtectionList, ProtectionRequest, ProtectionResetRequest } from '../schemas/protection.ts';
import type { ApiContext } from '../context.ts';

export function protectionRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    const tags = ['maker'];
    const maker = { auth: 'maker' as const };

    app.put('/v1/rfq/maker/protection', {
      config: maker,
      schema: { summary: "Set one instrument's market-maker protection (replaces it)", tags, body: ProtectionRequest, response: { 200: Protection, ...errorResponses } },
    }, async (request) => putProtection(deps, request.auth!.accountId, request.body));

    app.get('/v1/rfq/maker/protection', {
      config: maker,
      schema: { summary: "The maker's market-maker protection settings", tags, response: { 200: ProtectionList, ...errorResponses } },
    }, async (request) => ({ items: await listProtections(deps, request.auth!.accountId) }));

    app.post('/v1/rfq/maker/protection/reset', {
      config: maker,
      schema: { summary: 'Re-arm a tripped market-maker protection', tags, body: ProtectionResetRequest, response: { 200: Protection, ...errorResponses } },
    }, async (request) => resetProtection(deps, request.auth!.accountId, request.body.instrumentId));

    app.post('/v1/rfq/quotes/cancel-all', {
      config: maker,
      schema: { summary: "Cancel all the maker's open quotes (on one instrument when named)", tags, body: CancelAllRequest, response: { 200: CancelAllResponse, ...errorResponses } },
    }, async (request) => cancelAllQuotes(deps, request.auth!.accountId, request.body.instrumentId ?? null));

    app.post('/v1/rfq/maker/cancel-all-after', {
      config: maker,
      schema: { summary: "Arm, push back or disarm the maker's dead man's switch", tags, body: CancelAllAfterRequest, response: { 200: CancelAllAfter, ...errorResponses } },
    }, async (request) => armCancelAllAfter(deps, request.auth!.accountId, request.body.timeoutMs));

    app.get('/v1/rfq/maker/scorecard', {
      config: maker,
      schema: { summary: "The maker's own scorecard over a window", tags, querystring: ScorecardQuery, response: { 200: Scorecard, ...errorResponses } },
    }, async (request) => ownScorecard(deps, request.auth!.accountId, request.query.windowSecs));

    app.get('/v1/rfq/maker/cancel-all-after', {
      config: maker,
      schema: { summary: "When the maker's dead man's switch fires", tags, response: { 200: CancelAllAfter, ...errorResponses } },
    }, async (request) => readCancelAllAfter(deps, request.auth!.accountId));
  };
}
