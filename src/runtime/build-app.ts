/**
 * Builds the Fastify application (no listen): hooks, every route plugin, OpenAPI from the same
 * TypeBox schemas. `listen()` is the caller's business, so tests and nodes share this.
 */
import { createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { namedSchemas, withComponentRefs } from './openapi-components.ts';
import { asyncApiDocument } from './asyncapi.ts';
import websocket from '@fastify/websocket';
import type { Logger } from 'pino';
import { registerHttpHooks } from '../api/http-hooks.ts';
import { answerClientError, answerFrameworkError } from '../api/framework-errors.ts';
import { validatorCompiler } from '../api/validation.ts';
import { opsRoutes } from '../api/ops.routes.ts';
import { authRoutes } from '../api/v1/auth.routes.ts';
import type { NodeContext } from './node-context.ts';
import { CLOSE_SHUTDOWN } from '../ws/frames.ts';
import { routePlugins } from './route-plugins.ts';
import { API_VERSION, SERVICE_NAME } from '../api/service-index.ts';
import type { TrustProxy } from './config.ts';

/** HTTP limits per node (RFQ_HTTP_* settings): a slow or idle client cannot hold a connection. */
export interface HttpLimits {
  /** Whole request, headers and body, must arrive within this (then 408 and the socket closes). */
  requestTimeoutMs: number;
  /** Request headers must arrive within this. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Open connections per node; beyond it a new connection is closed at once. */
  maxConnections: number;
  /** Whose `X-Forwarded-For` names the client (RFQ_TRUST_PROXY); per-source limits key on it. */
  trustProxy: TrustProxy;
}

export const defaultHttpLimits: Readonly<HttpLimits> = Object.freeze({
  requestTimeoutMs: 10_000,
  headersTimeoutMs: 5000,
  keepAliveTimeoutMs: 5000,
  maxConnections: 10_000,
  trustProxy: false,
});

/**
 * Fastify's trust for a setting. A hop count is given as a function: Fastify itself fails a bare
 * number closed (it cannot check the nearest peer), but an operator who names a count asserts
 * that the node is reachable only through that many proxies (docs/operator-guide.md).
 */
function fastifyTrust(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

export async function buildApp(context: NodeContext, logger: Logger, limits: HttpLimits = defaultHttpLimits): Promise<FastifyInstance> {
  const app = Fastify({
    serverFactory: (handler) => {
      const server = createServer(
        {
          requestTimeout: limits.requestTimeoutMs,
          headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
          keepAliveTimeout: limits.keepAliveTimeoutMs,
          // Node checks the request and header deadlines on this period (30 s by default, which
          // would let a trickling body outlive its bound by that much).
          connectionsCheckingInterval: Math.min(1000, limits.requestTimeoutMs),
        },
        handler,
      );
      server.maxConnections = limits.maxConnections;
      return server;
    },
    loggerInstance: logger as FastifyBaseLogger,
    trustProxy: fastifyTrust(limits.trustProxy),
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    bodyLimit: 256 * 1024,
    requestIdHeader: 'x-request-id',
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  app.setValidatorCompiler(validatorCompiler);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: SERVICE_NAME, version: API_VERSION, description: 'RFQ venue: REST v1, operator surface. See docs/ for the WebSocket reference.' },
      components: {
        securitySchemes: {
          hmac: { type: 'http', scheme: 'bearer', description: 'Access key as bearer plus Service-API-Timestamp and Service-API-Signature headers' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Operator token (RFQ_ADMIN_TOKEN) as bearer' },
        },
        schemas: namedSchemas(),
      },
    },
    // Bodies as named components, for client generators (openapi-components.ts).
    transformObject: (document) => ('openapiObject' in document ? withComponentRefs(document.openapiObject as Record<string, unknown>) : document.swaggerObject),
    // The route's `config.auth` is what the hooks enforce; publishing it from there keeps the
    // document (and docs/http-reference.md, generated from it) from drifting.
    transform: ({ schema, url, route }) => {
      const auth = route.config?.auth ?? 'none';
      const security = auth === 'admin' ? [{ adminToken: [] }] : auth === 'hmac' || auth === 'maker' ? [{ hmac: [] }] : [];
      return { schema: { ...schema, security, 'x-auth': auth } as typeof schema, url };
    },
  });
  await app.register(websocket, {
    options: { maxPayload: 64 * 1024 },
    // Shutdown closes every socket with 1001 (DESIGN.md section 4), not ws's default 1005.
    preClose(done) {
      for (const client of app.websocketServer.clients) client.close(CLOSE_SHUTDOWN, 'server shutdown');
      app.websocketServer.close(() => done());
    },
  });
  // An upgrade request that arrives once the app is closing gets Fastify's 503 on the raw socket,
  // which Node no longer manages after 'upgrade' (and HTTP sockets are half-open): nothing would
  // end our side when the client hangs up, and the server's close would wait on it for ever. The
  // socket's peer has finished with it: end ours too (ws does the same for the sockets it owns).
  app.server.on('upgrade', (_request: unknown, socket: Duplex) => socket.once('end', () => socket.end()));
  registerHttpHooks(app, context);
  await app.register(opsRoutes(context));
  await app.register(authRoutes(context));
  for (const plugin of routePlugins(context)) await app.register(plugin);
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } as object }, async () => app.swagger());
  // The WebSocket frames' document; no schema, so it stays out of /openapi.json as that route does.
  app.get('/asyncapi.json', { config: { auth: 'none' }, schema: { hide: true } as object }, async (request) => asyncApiDocument(request.host, request.protocol === 'https'));
  return app;
}
