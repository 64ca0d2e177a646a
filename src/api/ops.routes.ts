/** The index (`/`, `/v1`), liveness, readiness, Prometheus metrics and the server clock. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { UnixMillis } from './schemas/common.ts';
import type { ApiContext } from './context.ts';
import { serviceIndex } from './service-index.ts';

export function opsRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    // An index rather than a 404 for whoever opens the bare URL.
    for (const path of ['/', '/v1']) app.get(path, { config: { auth: 'none' }, schema: { hide: true } as object }, async () => serviceIndex());

    app.get('/healthz', { config: { auth: 'none' }, schema: { hide: true } as object }, async () => ({ status: 'ok' }));

    app.get('/readyz', { config: { auth: 'none' }, schema: { hide: true } as object }, async (_request, reply) => {
      const storeReady = !context.draining.value && (await context.store.ping());
      const reasons = (context.notReadyReasons ?? []).map((reason) => reason()).filter((r): r is string => r !== null);
      const ready = storeReady && reasons.length === 0;
      return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', store: storeReady, ...(reasons.length > 0 ? { reasons } : {}) });
    });

    app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } as object }, async (_request, reply) => {
      reply.header('content-type', context.metrics.registry.contentType);
      return context.metrics.registry.metrics();
    });

    app.get('/v1/time', {
      config: { auth: 'none' },
      schema: { summary: 'Server clock (unix milliseconds)', tags: ['ops'], response: { 200: Type.Object({ serverTime: UnixMillis }) } },
    }, async () => ({ serverTime: context.service.clock.now() }));
  };
}
