/**
 * `GET /v1/rfq/ws`: the account session socket. The upgrade itself is unauthenticated
 * (`auth: 'none'`): the spec authenticates with the first frame, not headers, so browsers can
 * connect. Everything after the upgrade lives in WsSession.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ApiContext } from '../api/context.ts';
import { WS_PATH } from './frames.ts';
import { hubFor } from './hub.ts';
import { WsSession } from './session.ts';

export function wsRoutes(context: ApiContext) {
  return async (app: FastifyInstance) => {
    const hub = hubFor(context);
    app.get(WS_PATH, { websocket: true, config: { auth: 'none' }, schema: { hide: true } as object }, (socket, request) => {
      new WsSession(socket, context, hub, request.log as unknown as Logger);
    });
  };
}
