/**
 * `POST /v0`: one route dispatching on `operation` (DESIGN.md section 10). The layout comes from
 * the `V0-Layout` header (`wrapped` | `flat`) or the node's default; every answer carries
 * `responseMetadata { timestamp (ms), requestId }`, and every error is the spec's envelope
 * `{ operation, error, code, responseMetadata }` with the status of its code.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ServiceError } from '../../domain/errors.ts';
import { errorCodes, type ErrorCode } from '../../domain/error-codes.ts';
import { authorisedIdentity } from '../../services/v0/session.ts';
import { login } from '../../services/v0/login.ts';
import { marketsOf, venueMeta } from '../../services/v0/discovery.ts';
import { getBalances, getFees } from '../../services/v0/balances.ts';
import { createOrder, type V0Layout } from '../../services/v0/create-order.ts';
import { requestCancel } from '../../services/v0/cancel-order.ts';
import { batchGetDelegatedOrders, getDelegatedOrder, getUserOrders, listDelegatedOrders, listFills } from '../../services/v0/read-orders.ts';
import { getUserWithdrawals, getWithdrawalStatus, initiateWithdrawal } from '../../services/v0/withdrawals.ts';
import type { V0Deps } from '../../services/v0/v0-deps.ts';
import { v0Operations, type V0OperationName } from './v0-schemas.ts';
import type { ApiContext } from '../context.ts';
import { mapError } from '../error-map.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: false, coerceTypes: false, strict: false }));
const validators = new Map<string, ValidateFunction>(Object.entries(v0Operations).map(([name, op]) => [name, ajv.compile(op.request as object)]));

/** The v0 codes; any other ServiceError is reported as INTERNAL_ERROR except rate limiting. */
const V0_CODES = new Set<string>(['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_INPUT', 'INVALID_SIGNATURE', 'INVALID_STATEMENT', 'UNAUTHORIZED', 'USER_NOT_FOUND', 'VALIDATION_ERROR', 'ORDER_ERROR', 'CANCELLATION_ERROR', 'CONFLICT', 'SERVICE_UNAVAILABLE', 'NOT_FOUND', 'INTERNAL_ERROR', 'RATE_LIMITED']);

/** How long `cancelOrder` waits for the venue to confirm before answering (the cancel goes on regardless). */
const CANCEL_WAIT_MS = 5000;

export interface V0RouteContext {
  deps: V0Deps;
  defaultLayout: V0Layout;
}

type Handler = (deps: V0Deps, identity: string, body: Record<string, unknown>, layout: V0Layout) => Promise<Record<string, unknown>>;

const handlers: Record<V0OperationName, Handler> = {
  login: async (deps, _identity, body) => ({ token: (await login(deps, body)).token }),
  getTokens: async (deps) => ({ tokens: (await venueMeta(deps.venue)).tokens }),
  getMarkets: async (deps) => ({ markets: marketsOf(await venueMeta(deps.venue)) }),
  getBalances: (deps, identity) => getBalances(deps, identity),
  getFees: (deps, identity) => getFees(deps, identity),
  createOrder: async (deps, identity, body, layout) => {
    const order = await createOrder(deps, identity, layout, body);
    return { message: 'Order created', orderId: layout === 'wrapped' ? order.orderUuid : order.cloid };
  },
  cancelOrder: async (deps, identity, body, layout) => {
    await requestCancel(deps, identity, layout, body.orderId);
    await Promise.race([deps.venue.wake(), new Promise((resolve) => setTimeout(resolve, CANCEL_WAIT_MS).unref())]);
    return { message: 'Order cancellation submitted', orderId: String(body.orderId) };
  },
  listDelegatedOrders: (deps, identity, body) => listDelegatedOrders(deps, identity, body),
  getDelegatedOrder: (deps, identity, body) => getDelegatedOrder(deps, identity, body.orderId),
  batchGetDelegatedOrders: (deps, identity, body) => batchGetDelegatedOrders(deps, identity, body.orderIds),
  listFills: (deps, identity, body) => listFills(deps, identity, body),
  initiateWithdrawal: async (deps, identity, body) => ({ message: 'Withdrawal initiated', ...(await initiateWithdrawal(deps, identity, body)) }),
  getWithdrawalStatus: (deps, identity, body) => getWithdrawalStatus(deps, identity, body.withdrawalId),
  getUserWithdrawals: (deps, identity) => getUserWithdrawals(deps, identity),
  getUserOrders: async (deps, identity, body, layout) => {
    if (layout === 'flat') throw new ServiceError('VALIDATION_ERROR', 'getUserOrders is decommissioned in this layout; use listDelegatedOrders, getDelegatedOrder or batchGetDelegatedOrders');
    return getUserOrders(deps, identity, body.status);
  },
};

function bearer(request: FastifyRequest): string | null {
  const value = request.headers.authorization;
  if (typeof value !== 'string') return null;
  const match = /^Bearer\s+(\S+)$/i.exec(value);
  return match ? match[1]! : null;
}

function layoutOf(request: FastifyRequest, fallback: V0Layout): V0Layout {
  const value = request.headers['v0-layout'];
  if (value === undefined) return fallback;
  if (value === 'wrapped' || value === 'flat') return value;
  throw new ServiceError('VALIDATION_ERROR', 'the V0-Layout header must be wrapped or flat');
}

/** The body's `operation` when it names one. */
function operationOf(body: unknown): string | null {
  return typeof body === 'object' && body !== null && typeof (body as Record<string, unknown>).operation === 'string' ? ((body as Record<string, unknown>).operation as string) : null;
}

/** A refusal made before the route ran (a hook, the body parser), as `/v0` answers it. */
function preRouteRefusal(error: unknown, operation: string | null): unknown {
  const mapped = mapError(error);
  const code = mapped.body.error.code;
  if (code === 'RATE_LIMITED' || code === 'PAYLOAD_TOO_LARGE' || code === 'UNSUPPORTED_MEDIA_TYPE') return new ServiceError(code, mapped.body.error.message);
  if (mapped.status >= 500) return error;
  const message = error instanceof ServiceError && operation !== null ? error.message : 'the body must be a JSON object with an operation';
  return new ServiceError(operation === 'login' ? 'INVALID_INPUT' : 'VALIDATION_ERROR', message);
}

function sendError(reply: FastifyReply, operation: string | null, error: unknown, requestId: string, log: FastifyRequest['log']) {
  let code: string = 'INTERNAL_ERROR';
  let message = 'internal error';
  if (error instanceof ServiceError && V0_CODES.has(error.code)) {
    code = error.code;
    message = error.message;
  } else {
    log.error({ err: error, requestId }, 'v0 request failed');
  }
  const status = code in errorCodes ? errorCodes[code as ErrorCode].status : 500;
  return reply.status(status).send({ operation, error: message, code, responseMetadata: { timestamp: Date.now(), ...(code === 'INTERNAL_ERROR' ? { requestId } : {}) } });
}

export function v0Routes(context: ApiContext) {
  return async (app: FastifyInstance) => {
    app.post('/v0', {
      // The SIWE `message` of `login` is multi-line; every other field refuses control characters.
      config: { auth: 'none', multilineFields: ['message'] },
      schema: { hide: true } as object,
      // What is refused before the route runs still answers in the v0 envelope: a body too large
      // or not JSON as v1 does (413, 415); bad text in a parsed body as that operation's input
      // error (`INVALID_INPUT` on login), the operation named.
      errorHandler: (error, request, reply) => sendError(reply, operationOf(request.body), preRouteRefusal(error, operationOf(request.body)), randomUUID(), request.log),
    }, async (request, reply) => {
      const requestId = randomUUID();
      const body = request.body;
      const operation = operationOf(body);
      try {
        const layout = layoutOf(request, context.v0.defaultLayout);
        if (operation === null || !Object.hasOwn(v0Operations, operation)) throw new ServiceError('VALIDATION_ERROR', `unknown operation; one of ${Object.keys(v0Operations).join(', ')}`);
        const name = operation as V0OperationName;
        const deps = context.v0.deps;
        const identity = v0Operations[name].auth === 'bearer' ? await authorisedIdentity(deps, bearer(request)) : '';
        const { operation: _op, ...fields } = body as Record<string, unknown>;
        const validate = validators.get(name)!;
        if (!validate(fields)) {
          const first = validate.errors?.[0];
          const field = first ? (first.instancePath.replace(/^\//, '').replace(/\//g, '.') || String((first.params as { missingProperty?: string }).missingProperty ?? '(body)')) : '(body)';
          throw new ServiceError(name === 'login' ? 'INVALID_INPUT' : 'VALIDATION_ERROR', `${field} ${first?.message ?? 'is invalid'}`);
        }
        const result = await handlers[name](deps, identity, fields, layout);
        const responseMetadata = { timestamp: Date.now(), requestId };
        return reply.send(layout === 'wrapped' ? { data: result, responseMetadata } : { operation, ...result, responseMetadata });
      } catch (error) {
        return sendError(reply, operation, error, requestId, request.log);
      }
    });
  };
}
