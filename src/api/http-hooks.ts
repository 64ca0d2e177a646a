/**
 * Cross-cutting HTTP behaviour, registered once: raw-body capture (the HMAC signs the body as
 * sent), per-source and per-key rate limits, authentication by route config, metrics, the
 * error envelope and the 404 envelope.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, invalidField } from '../domain/errors.ts';
import { controlCharacterPath } from '../domain/text/control-characters.ts';
import { MAKER_SCOPE_HINT } from '../domain/auth/maker-scope.ts';
import { authenticateRequest } from '../services/auth/authenticate-request.ts';
import { readCredentialStanding } from '../services/auth/credential-standing.ts';
import { mapError } from './error-map.ts';
import type { ApiContext } from './context.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body fields (top-level names) that may hold line feeds; every other control character is refused. */
    multilineFields?: string[];
    /** The body schema has no required field: an empty request body stands for `{}`. */
    optionalBody?: boolean;
  }
}

/** Where a caller finds the token, without naming this node's paths. */
const ADMIN_TOKEN_HINT = "operator token required (Authorization: Bearer <token>): the node's RFQ_ADMIN_TOKEN, or on the embedded stack the admin-token file in its RFQ_DATA_DIR (default ./.rfq-data)";
/** The parsed body of a request whose body is not JSON: refused after authentication. */
const UNPARSABLE_BODY = Object.freeze({ unparsable: true });

/** Wrong operator tokens allowed per source address per second (all nodes together). */
export const ADMIN_AUTH_FAILURES_PER_SEC = 5;

function header(request: FastifyRequest, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function bearer(request: FastifyRequest): string | null {
  const value = header(request, 'authorization');
  if (!value) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(value);
  return match ? match[1]! : null;
}

function splitUrl(url: string): { path: string; query: string } {
  const index = url.indexOf('?');
  return index === -1 ? { path: url, query: '' } : { path: url.slice(0, index), query: url.slice(index + 1) };
}

function applyRateLimit(reply: FastifyReply, decision: { allowed: boolean; limit: number; remaining: number; resetMs: number }): void {
  reply.header('X-RateLimit-Limit', decision.limit);
  reply.header('X-RateLimit-Remaining', decision.remaining);
  reply.header('X-RateLimit-Reset', Math.ceil(decision.resetMs / 1000));
  if (!decision.allowed) {
    reply.header('Retry-After', Math.max(1, Math.ceil(decision.resetMs / 1000)));
    throw new ServiceError('RATE_LIMITED', 'too many requests', { retryAfterMs: decision.resetMs });
  }
}

/** Whether the request's bearer is `expected` (constant-time; the operator and metrics tokens). */
export function bearerIs(request: FastifyRequest, expected: string): boolean {
  return tokenMatches(expected, bearer(request));
}

function tokenMatches(expected: string, presented: string | null): boolean {
  if (!presented) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * No field of this interface carries a control character (NUL cannot even be stored): refused
 * before anything reads the request, wherever it sits (path, query or body, keys included).
 */
function refuseControlCharacters(request: FastifyRequest): void {
  const multiline = request.routeOptions.config.multilineFields ?? [];
  for (const [part, value] of [['path', request.params], ['query', request.query], ['body', request.body]] as const) {
    const found = controlCharacterPath(value, '', 0, part === 'body' ? multiline : []);
    if (found !== null) {
      const field = part === 'body' ? found : `${part}.${found}`;
      throw invalidField(field, 'controlCharacter', `${field} must not contain control characters or unpaired surrogates`);
    }
  }
}

/** Authenticates the request as its route's config says (none, admin token, HMAC key, maker key). */
async function authenticateByRoute(context: ApiContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const auth = request.routeOptions.config.auth ?? 'none';
  if (auth === 'none') return;
  if (auth === 'admin') {
    // Failed operator logins are limited per source across nodes; once the budget is spent even a
    // right token waits (429), so guessing gains nothing from the answer.
    const bucket = `admin-fail:${request.ip}`;
    const now = Date.now();
    if (context.rateLimiter.exhausted(bucket, ADMIN_AUTH_FAILURES_PER_SEC, now)) {
      reply.header('Retry-After', 1);
      throw new ServiceError('RATE_LIMITED', 'too many failed operator authentications from this source', { retryAfterMs: 1000 });
    }
    if (!bearerIs(request, context.adminToken)) {
      context.rateLimiter.hit(bucket, ADMIN_AUTH_FAILURES_PER_SEC, now);
      throw new ServiceError('ADMIN_UNAUTHORIZED', ADMIN_TOKEN_HINT);
    }
    return;
  }
  const { path, query } = splitUrl(request.url);
  const accessKey = bearer(request);
  request.auth = await authenticateRequest(context.authentication, {
    accessKey,
    timestamp: header(request, 'service-api-timestamp'),
    signature: header(request, 'service-api-signature'),
    signed: { method: request.method, path, query, body: request.rawBody },
    deferClaim: request.routeOptions.config.deferTimestampClaim === true,
  });
  applyRateLimit(reply, context.rateLimiter.hit(`key:${request.auth.accessKey}`, context.rateLimit.perKeyPerSec, Date.now()));
  if (auth === 'maker') {
    if (!request.auth.makerScoped) throw new ServiceError('MAKER_SCOPE_REQUIRED', MAKER_SCOPE_HINT);
    // A route that claims inside its write checks the standing there with the claim (a statement
    // saved per re-quote, the hottest route); what it refuses is explained with a fresh read.
    if (request.routeOptions.config.deferTimestampClaim === true) return;
    // Live, not frozen at issuance: a deactivated or suspended maker is
    // refused on every node at once, and so is a key revoked on another node (a deferred claim
    // has not yet met the store's revocation check).
    const standing = await readCredentialStanding(context.service.db, request.auth.accessKey, context.service.clock.now());
    if (standing.keyRefusal !== null) throw new ServiceError('UNAUTHENTICATED', standing.keyRefusal);
    if (standing.makerRefusal !== null) throw new ServiceError('MAKER_NOT_APPROVED', standing.makerRefusal, standing.suspendedUntil !== null ? { suspendedUntil: standing.suspendedUntil } : undefined);
  }
}

export function registerHttpHooks(app: FastifyInstance, context: ApiContext): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('rawBody', '');

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 256 * 1024 }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    if (text.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      // Refused once the request is authenticated (preValidation): 401 before 400.
      done(null, UNPARSABLE_BODY);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    const auth = request.routeOptions.config.auth ?? 'none';
    if (auth === 'admin') return;
    applyRateLimit(reply, context.rateLimiter.hit(`ip:${request.ip}`, context.rateLimit.perSourcePerSec, Date.now()));
  });

  // preValidation, not preHandler: a request is authenticated before its body is judged, so an
  // unauthenticated caller learns nothing about the body (401 before 400): not whether it parses,
  // holds bad text or fits the schema.
  app.addHook('preValidation', async (request, reply) => {
    // An optional body may be absent altogether (e.g. an operator reject without a reason).
    if (request.body === undefined && request.routeOptions.config.optionalBody === true) request.body = {};
    await authenticateByRoute(context, request, reply);
    if (request.body === UNPARSABLE_BODY) throw new ServiceError('INVALID_REQUEST', 'body is not valid JSON', { errors: [{ field: '(body)', reason: 'json', message: 'body is not valid JSON' }] });
    refuseControlCharacters(request);
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    context.metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    context.metrics.latency.observe({ method: request.method, route }, seconds);
  });

  app.setErrorHandler(async (error, request, reply) => {
    const mapped = mapError(error);
    if (mapped.internal) {
      request.log.error({ err: error }, 'request failed');
      // The request id lets a user's report be matched to the log line; it reveals nothing else.
      mapped.body.error.details = { requestId: request.id };
    } else if (mapped.status >= 500) request.log.warn({ code: mapped.body.error.code }, 'request refused');
    return reply.status(mapped.status).send(mapped.body);
  });

  app.setNotFoundHandler(async (request, reply) => {
    return reply.status(404).send({ error: { code: 'NOT_FOUND', message: `no route ${request.method} ${splitUrl(request.url).path}` } });
  });
}
