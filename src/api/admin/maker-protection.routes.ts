/** GET /admin/v1/makers/{address}: one maker with its market-maker protection, live sessions and dead man's switch (DESIGN.md sections 11, 15). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { readMakerWithProtection } from '../../services/protection/maker-protection-view.ts';
import { makerScorecard } from '../../services/conduct/maker-scorecard.ts';
import { Scorecard, ScorecardQuery } from '../schemas/scorecard.ts';
import { errorResponses } from '../schemas/common.ts';
import { CancelAllAfter, MakerSessionView, Protection } from '../schemas/protection.ts';
import { MakerView } from './admin.routes.ts';
import type { ApiContext } from '../context.ts';

const MakerWithProtection = Type.Object({ ...MakerView.properties, protection: Type.Array(Protection), sessions: Type.Array(MakerSessionView), cancelAllAfter: CancelAllAfter });

export function adminMakerProtectionRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/admin/v1/makers/:address', {
      config: { auth: 'admin' as const },
      schema: {
        summary: "One maker with its market-maker protection, live sessions and dead man's switch",
        tags: ['admin'],
        params: Type.Object({ address: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: MakerWithProtection, ...errorResponses },
      },
    }, async (request) => readMakerWithProtection(context.service, request.params.address));

    app.get('/admin/v1/makers/:address/scorecard', {
      config: { auth: 'admin' as const },
      schema: {
        summary: "One maker's scorecard over a window",
        tags: ['admin'],
        params: Type.Object({ address: Type.String({ minLength: 1, maxLength: 100 }) }),
        querystring: ScorecardQuery,
        response: { 200: Scorecard, ...errorResponses },
      },
    }, async (request) => makerScorecard(context.service, request.params.address, request.query.windowSecs));
  };
}
