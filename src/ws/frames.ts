/**
 * Client frame parsing for `/v1/rfq/ws` and `/v1/rfq/prices/ws` (spec "Events"), close codes and
 * topic names. Pure: no I/O, so the sessions only decide what to do with a classified frame.
 */
import type { ErrorCode } from '../domain/error-codes.ts';
import { controlCharacterPath } from '../domain/text/control-characters.ts';
import { ACCOUNT_TOPICS, SUPPORTED_TOPICS, type AccountTopic, type SupportedTopic } from '../domain/ws-topics.ts';

export const WS_PATH = '/v1/rfq/ws';
export const PRICES_WS_PATH = '/v1/rfq/prices/ws';

/** Close codes chosen in DESIGN.md section 4 (the spec leaves them open). */
export const CLOSE_AUTH_FAILED = 4001;
/** Keepalive: two consecutive server pings went unanswered (not in DESIGN.md's list; chosen here). */
export const CLOSE_KEEPALIVE_TIMEOUT = 4002;
export const CLOSE_CONNECTION_CAP = 4008;
/** The send buffer passed RFQ_WS_SEND_BUFFER_BYTES (not in DESIGN.md's list; chosen here). */
export const CLOSE_SLOW_CONSUMER = 4009;
export const CLOSE_RATE_LIMITED = 4029;
export const CLOSE_SHUTDOWN = 1001;

// Every other topic answers UNSUPPORTED_CHANNEL.
export { SUPPORTED_TOPICS, ACCOUNT_TOPICS, type SupportedTopic, type AccountTopic } from '../domain/ws-topics.ts';

export function isSupportedTopic(topic: string): topic is SupportedTopic {
  return (SUPPORTED_TOPICS as readonly string[]).includes(topic);
}

export function isAccountTopic(topic: string): topic is AccountTopic {
  return (ACCOUNT_TOPICS as readonly string[]).includes(topic);
}

/** Topics whose selector carries `instrumentId`. */
export function takesInstrument(topic: string): boolean {
  return topic === 'openRfqs' || topic === 'prices';
}

export type ClientFrame =
  /** `cancelOnDisconnect`: additive (DESIGN.md section 11), absent when not sent. */
  | { kind: 'auth'; accessKey: string; signedAt: number; signature: string; cancelOnDisconnect?: boolean }
  /**
   * `instrumentId`: the flattened selector parameter (openRfqs, prices); `fromSeq`: replay after
   * this seq (account topics, additive extension). Each absent when not sent.
   */
  | { kind: 'subscribe'; topic: string; instrumentId?: string; fromSeq?: number }
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
  const control = controlCharacterPath(value);
  if (control !== null) return { kind: 'invalid', message: `${control} must not contain control characters or unpaired surrogates` };
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
      const cancelOnDisconnect = value.cancelOnDisconnect;
      if (cancelOnDisconnect !== undefined && typeof cancelOnDisconnect !== 'boolean') return { kind: 'invalid', message: 'auth: `cancelOnDisconnect` must be a boolean' };
      return { kind: 'auth', accessKey, signedAt, signature, ...(cancelOnDisconnect === undefined ? {} : { cancelOnDisconnect }) };
    }
    case 'subscribe':
    case 'unsubscribe': {
      const topic = value.topic;
      if (typeof topic !== 'string' || topic.length === 0) return { kind: 'invalid', message: `${kind}: \`topic\` string required` };
      const instrumentId = value.instrumentId;
      if (instrumentId !== undefined && (typeof instrumentId !== 'string' || instrumentId.length === 0 || instrumentId.length > 64)) {
        return { kind: 'invalid', message: `${kind}: \`instrumentId\` must be a non-empty string` };
      }
      const fromSeq = value.fromSeq;
      if (fromSeq !== undefined && (kind !== 'subscribe' || typeof fromSeq !== 'number' || !Number.isSafeInteger(fromSeq) || fromSeq < 0)) {
        return { kind: 'invalid', message: `${kind}: \`fromSeq\` must be a non-negative integer (subscribe only)` };
      }
      if (kind === 'unsubscribe') return instrumentId === undefined ? { kind, topic } : { kind, topic, instrumentId };
      return { kind, topic, ...(instrumentId === undefined ? {} : { instrumentId }), ...(fromSeq === undefined ? {} : { fromSeq }) };
    }
    case 'ping':
    case 'pong':
      return { kind };
    default:
      return { kind: 'invalid', message: `unknown frame kind ${JSON.stringify(kind.slice(0, 64))}` };
  }
}

/** The spec's `error` frame; codes come from the one closed list (src/domain/error-codes.ts). */
export function errorFrame(code: ErrorCode, message: string): Record<string, unknown> {
  return { kind: 'error', code, message };
}

/** Ingest socket frames (`/v1/rfq/prices/ws`): `auth`, then `ladder` frames. */
export type IngestFrame =
  | { kind: 'auth'; accessKey: string; signedAt: number; signature: string }
  | { kind: 'ladder'; instrumentId: string; bids: unknown; asks: unknown; ts: number }
  | { kind: 'invalid'; message: string };

export function parseIngestFrame(raw: string): IngestFrame {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: 'invalid', message: 'frame is not valid JSON' };
  }
  const control = isObject(value) ? controlCharacterPath(value) : null;
  if (control !== null) return { kind: 'invalid', message: `${control} must not contain control characters or unpaired surrogates` };
  if (isObject(value) && value.kind === 'ladder') {
    const { instrumentId, bids, asks, ts } = value;
    if (typeof instrumentId !== 'string' || instrumentId.length === 0 || instrumentId.length > 64) return { kind: 'invalid', message: 'ladder: `instrumentId` string required' };
    if (typeof ts !== 'number' || !Number.isSafeInteger(ts) || ts < 0) return { kind: 'invalid', message: 'ladder: `ts` non-negative integer required' };
    if (bids === undefined || asks === undefined) return { kind: 'invalid', message: 'ladder: `bids` and `asks` required' };
    return { kind: 'ladder', instrumentId, bids, asks, ts };
  }
  const frame = parseClientFrame(raw);
  if (frame.kind === 'auth' || frame.kind === 'invalid') return frame;
  // ping/pong/subscribe belong to /v1/rfq/ws; this socket keeps alive with native pings.
  return { kind: 'invalid', message: `unknown frame kind ${JSON.stringify(frame.kind)} on the price ingest socket` };
}
