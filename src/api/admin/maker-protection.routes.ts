/** GET /admin/v1/makers/{address}: one maker with its market-maker protection and live sessions (DESIGN.md section 11). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { readMakerWithProtection } from '../../services/protection/maker-protection-view.ts';
import { errorResponses } from '../schemas/common.ts';
import { MakerSessionView, Protection } from '../schemas/protection.ts';
import { MakerView } from './admin.routes.ts';
import type { ApiContext } from '../context.ts';

const MakerWithProtection = Type.Object({ ...MakerView.properties, protection: Type.Array(Protection), sessions: Type.Array(MakerSessionView) });

export function adminMakerProtectionRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/admin/v1/makers/:address', {
      config: { auth: 'admin' as const },
      schema: {
        summary: 'One maker with its market-maker protection and live sessions',
        tags: ['admin'],
        params: Type.Object({ address: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: MakerWithProtection, ...errorResponses },
      },
    }, async (request) => readMakerWithProtection(context.service, request.params.address));
  };
}
