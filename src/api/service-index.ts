/**
 * `GET /` and `GET /v1`: a short JSON index for someone who points a browser or curl at the
 * service, instead of a 404: what it is, its API version (the OpenAPI document's), and where to
 * go next. Paths only; the guides themselves live in the repository's README.md and docs/.
 */
export const SERVICE_NAME = 'rfq-service';
export const API_VERSION = '1.0.0';

export function serviceIndex() {
  return {
    name: SERVICE_NAME,
    version: API_VERSION,
    description: 'Request-for-quote trading venue: REST and WebSocket v1, legacy /v0, operator surface',
    links: {
      openapi: '/openapi.json',
      time: '/v1/time',
      network: '/v1/rfq/network',
      websocket: '/v1/rfq/ws',
      priceIngest: '/v1/rfq/prices/ws',
      legacy: '/v0',
      health: '/healthz',
      ready: '/readyz',
      console: '/console',
    },
    docs: 'README.md and docs/ in the repository: http-reference.md, websocket.md, maker-integration.md, taker-quickstart.md, operator-guide.md, errors.md',
  };
}
