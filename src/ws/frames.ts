/**
 * Client frame parsing for `/v1/rfq/ws` (spec "Events"). Pure: no I/O, so the session only
 * decides what to do with an already-classified frame.
 */

export const WS_PATH = '/v1/rfq/ws';

/** Close codes chosen in DESIGN.md section 4 (the spec leaves them open). */
export const CLOSE_AUTH_FAILED = 4001;
/** Keepalive: two consecutive server pings went unanswered (not in DESIGN.md's list; chosen here). */
export const CLOSE_KEEPALIVE_TIMEOUT = 4002;

/** Topics this slice serves; every other topic answers UNSUPPORTED_CHANNEL. */
export const SUPPORTED_TOPICS = ['balances', 'rfqStatus', 'quotes', 'quoteStatus', 'openRfqs'] as const;
export type SupportedTopic = (typeof SUPPORTED_TOPICS)[number];

export function isSupportedTopic(topic: string): topic is SupportedTopic {
  return (SUPPORTED_TOPICS as readonly string[]).includes(topic);
}

export type ClientFrame =
  | { kind: 'auth'; accessKey: string; signedAt: number; signature: string }
  /** `instrumentId`: the flattened selector parameter (openRfqs); absent when not sent. */
  | { kind: 'subscribe'; topic: string; instrumentId?: string }
  | { kind: 'unsubscribe'; topic: string; instrumentId?: string }
  | { kind: 'ping' }
  | { kind: 'pong' }
  /** Anything we cannot act on; `message` says why (it goes into the error frame). */
  | { kind: 'invalid'; message: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseClientFrame(raw: string): ClientFrame {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: 'invalid', message: 'frame is not valid JSON' };
  }
  if (!isObject(value)) return { kind: 'invalid', message: 'frame must be a JSON object' };
  const kind = value.kind;
  if (typeof kind !== 'string') return { kind: 'invalid', message: 'frame needs a string `kind`' };
  switch (kind) {
    case 'auth': {
      const { accessKey, signedAt, signature } = value;
      if (typeof accessKey !== 'string' || accessKey.length === 0) return { kind: 'invalid', message: 'auth: `accessKey` string required' };
      // int64 unix milliseconds, min 0 (spec); a float or negative value is refused, not rounded.
      if (typeof signedAt !== 'number' || !Number.isSafeInteger(signedAt) || signedAt < 0) {
        return { kind: 'invalid', message: 'auth: `signedAt` non-negative integer required' };
      }
      if (typeof signature !== 'string' || signature.length === 0) return { kind: 'invalid', message: 'auth: `signature` string required' };
      return { kind: 'auth', accessKey, signedAt, signature };
    }
    case 'subscribe':
    case 'unsubscribe': {
      const topic = value.topic;
      if (typeof topic !== 'string' || topic.length === 0) return { kind: 'invalid', message: `${kind}: \`topic\` string required` };
      const instrumentId = value.instrumentId;
      if (instrumentId === undefined) return { kind, topic };
      if (typeof instrumentId !== 'string' || instrumentId.length === 0 || instrumentId.length > 64) {
        return { kind: 'invalid', message: `${kind}: \`instrumentId\` must be a non-empty string` };
      }
      return { kind, topic, instrumentId };
    }
    case 'ping':
    case 'pong':
      return { kind };
    default:
      return { kind: 'invalid', message: `unknown frame kind ${JSON.stringify(kind.slice(0, 64))}` };
  }
}

export function errorFrame(code: string, message: string): Record<string, unknown> {
  return { kind: 'error', code, message };
}
