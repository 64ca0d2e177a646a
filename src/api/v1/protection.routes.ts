/** Market-maker protection (DESIGN.md section 11): a maker's per-instrument limits, their list, and the reset after a trip. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listProtections, putProtection, resetProtection } from '../../services/protection/protection-settings.ts';
import { errorResponses } from '../schemas/common.ts';
import { Protection, ProtectionList, ProtectionRequest, ProtectionResetRequest } from '../schemas/protection.ts';
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
  };
}
