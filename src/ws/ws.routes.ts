/**
 * The two WebSocket paths. The upgrades themselves are unauthenticated (`auth: 'none'`): the spec
 * authenticates with the first frame, not headers, so browsers can connect. Everything after the
 * upgrade lives in WsSession (`/v1/rfq/ws`) and PriceIngestSession (`/v1/rfq/prices/ws`).
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { PRICES_WS_PATH, WS_PATH } from './frames.ts';
import { PriceIngestSession } from './price-ingest.ts';
import { WsSession } from './session.ts';
import type { WsContext } from './ws-context.ts';

export function wsRoutes(context: WsContext) {
  return async (app: FastifyInstance) => {
    const { hub, book } = context;
    app.get(WS_PATH, { websocket: true, config: { auth: 'none' }, schema: { hide: true } as object }, (socket, request) => {
      new WsSession(socket, context, hub, book, request.log as unknown as Logger, request.ip);
    });
    app.get(PRICES_WS_PATH, { websocket: true, config: { auth: 'none' }, schema: { hide: true } as object }, (socket, request) => {
      new PriceIngestSession(socket, context, hub, book, request.log as unknown as Logger, request.ip);
    });
  };
}
