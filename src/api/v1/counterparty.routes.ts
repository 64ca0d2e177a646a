/**
 * Counterparty choice (DESIGN.md section 15): a maker publishes or withdraws its alias, any
 * signed-in account lists the disclosed makers, and a maker replaces or reads its denylist.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listDisclosedMakers, readMakerProfile, setMakerProfile } from '../../services/conduct/maker-profile.ts';
import { readDenylist, setDenylist } from '../../services/conduct/maker-denylist.ts';
import { errorResponses } from '../schemas/common.ts';
import { Denylist, DenylistRequest, DisclosedMakers, MakerProfile, MakerProfileRequest } from '../schemas/counterparties.ts';
import type { ApiContext } from '../context.ts';

export function counterpartyRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    const maker = { auth: 'maker' as const };

    app.put('/v1/rfq/maker/profile', {
      config: maker,
      schema: { summary: "Publish (or withdraw, with null) the maker's alias", tags: ['maker'], body: MakerProfileRequest, response: { 200: MakerProfile, ...errorResponses } },
    }, async (request) => setMakerProfile(deps, request.auth!.accountId, request.body));

    app.get('/v1/rfq/maker/profile', {
      config: maker,
      schema: { summary: "The maker's published alias", tags: ['maker'], response: { 200: MakerProfile, ...errorResponses } },
    }, async (request) => readMakerProfile(deps, request.auth!.accountId));

    app.get('/v1/rfq/makers', {
      config: { auth: 'hmac' as const },
      schema: { summary: 'The disclosed makers, by alias, that an RFQ may name or exclude', tags: ['rfq'], response: { 200: DisclosedMakers, ...errorResponses } },
    }, async () => listDisclosedMakers(deps));

    app.put('/v1/rfq/maker/denylist', {
      config: maker,
      schema: { summary: 'Replace the takers this maker denies', tags: ['maker'], body: DenylistRequest, response: { 200: Denylist, ...errorResponses } },
    }, async (request) => setDenylist(deps, request.auth!.accountId, request.body));

    app.get('/v1/rfq/maker/denylist', {
      config: maker,
      schema: { summary: 'The takers this maker denies', tags: ['maker'], response: { 200: Denylist, ...errorResponses } },
    }, async (request) => readDenylist(deps, request.auth!.accountId));
  };
}
