/**
 * The AsyncAPI 3.0 document of the two WebSocket paths, `GET /asyncapi.json`: what
 * `/openapi.json` is to the REST routes. Built from the frame schemas (src/api/schemas/ws-frames.ts)
 * so the document, the frame check in test/ws and the generated part of docs/websocket.md say
 * the same. Operations are the service's: it `receive`s client frames and `send`s server frames.
 * A frame's REST object (Rfq, Quote, ...) is a `$ref` to the same component `/openapi.json` has.
 */
import type { TSchema } from 'typebox';
import { componentRefiner, namedSchemas, shapeIndex } from './openapi-components.ts';
import { API_VERSION, SERVICE_NAME } from '../api/service-index.ts';
import * as wsFrames from '../api/schemas/ws-frames.ts';
import { FRAME_MESSAGES } from '../api/schemas/ws-frames.ts';

type Json = Record<string, unknown>;

/** Channel id and address of each path. */
export const CHANNELS = { session: '/v1/rfq/ws', priceIngest: '/v1/rfq/prices/ws' } as const;

const json = (schema: TSchema) => JSON.parse(JSON.stringify(schema)) as Json;

/** The frame schemas' component names: their export names. */
function frameComponentNames(): Map<TSchema, string> {
  const names = new Map<TSchema, string>();
  for (const [name, value] of Object.entries(wsFrames)) if (name.endsWith('Frame') && typeof value === 'object') names.set(value as TSchema, name);
  return names;
}

/** Every `$ref` below `value`. */
function refsIn(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') into.add(inner.replace('#/components/schemas/', ''));
      else refsIn(inner, into);
    }
  }
  return into;
}

/** `host`: where the sockets are (the request's Host); absent, the document names no server. */
export function asyncApiDocument(host?: string, secure = false): Json {
  const rest = namedSchemas();
  const { refine } = componentRefiner(shapeIndex(rest));
  const frameNames = frameComponentNames();
  const schemas: Record<string, Json> = {};
  for (const [schema, name] of frameNames) schemas[name] = refine(json(schema)) as Json;
  // Only the REST components the frames reach, transitively.
  const pending = [...refsIn(schemas, new Set())];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (schemas[name] !== undefined) continue;
    schemas[name] = rest[name]!;
    pending.push(...refsIn(schemas[name], new Set()));
  }

  const messages: Record<string, Json> = {};
  const channels: Record<string, Json> = {};
  const operations: Record<string, Json> = {};
  for (const [id, address] of Object.entries(CHANNELS)) channels[id] = { address, messages: {} };
  for (const [name, message] of Object.entries(FRAME_MESSAGES)) {
    messages[name] = { name, title: name, summary: message.summary, contentType: 'application/json', payload: { $ref: `#/components/schemas/${frameNames.get(message.schema)}` } };
    for (const [id, address] of Object.entries(CHANNELS)) {
      if (message.paths.includes(address)) (channels[id]!.messages as Json)[name] = { $ref: `#/components/messages/${name}` };
    }
  }
  for (const [id, address] of Object.entries(CHANNELS)) {
    for (const [action, direction] of [['receive', 'client'], ['send', 'server']] as const) {
      const names = Object.entries(FRAME_MESSAGES).filter(([, m]) => m.direction === direction && m.paths.includes(address)).map(([name]) => name);
      operations[`${id}${action[0]!.toUpperCase()}${action.slice(1)}`] = {
        action,
        channel: { $ref: `#/channels/${id}` },
        summary: direction === 'client' ? `Frames a client sends on ${address}.` : `Frames the service sends on ${address}.`,
        messages: names.map((name) => ({ $ref: `#/channels/${id}/messages/${name}` })),
      };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: `${SERVICE_NAME} WebSocket`,
      version: API_VERSION,
      description: 'Account sessions and public prices (/v1/rfq/ws), maker price ingest (/v1/rfq/prices/ws). Every frame is one JSON text object with a `kind`. Prose: docs/websocket.md.',
    },
    ...(host ? { servers: { service: { host, protocol: secure ? 'wss' : 'ws', description: 'This node.' } } } : {}),
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { schemas, messages },
  };
}
