/**
 * Client frame parsing for `/v1/rfq/ws` (spec "Events"). Pure: no I/O, so the session only
 * decides what to do with an already-classified frame.
 */

export const WS_PATH = '/v1/rfq/ws';

/** Close codes chosen in DESIGN.md section 4 (the spec leaves them open). */
export const CLOSE_AUTH_FAILED = 4001;

/** Topics this slice serves; every other topic answers UNSUPPORTED_CHANNEL. */
export const SUPPORTED_TOPICS = ['balances', 'rfqStatus'] as const;
export type SupportedTopic = (typeof SUPPORTED_TOPICS)[number];

export function isSupportedTopic(topic: string): topic is SupportedTopic {
  return (SUPPORTED_TOPICS as readonly string[]).includes(topic);
}

export type ClientFrame =
  | { kind: 'auth'; accessKey: string; signedAt: number; signature: string }
  | { kind: 'subscribe'; topic: string }
  | { kind: 'unsubscribe'; topic: string }
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
      return { kind, topic };
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
