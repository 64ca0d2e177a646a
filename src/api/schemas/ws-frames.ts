/**
 * Schemas of the WebSocket frames of `/v1/rfq/ws` and `/v1/rfq/prices/ws` (docs/websocket.md),
 * published by `/asyncapi.json` and checked against every frame a node sends (test/ws). A frame
 * that carries a REST object is that object's schema plus `kind` (and `seq`/`resync` on account
 * topics), so the socket and the REST reads cannot describe the same view twice.
 *
 * The client frames are the contract, not the parser: src/ws/frames.ts keeps its hand-written
 * checks because each refusal has its own stable message (`auth: \`signedAt\` non-negative integer
 * required`), unknown fields are dropped rather than refused, and a ladder's levels are checked by
 * the price domain with per-level `details.errors[]` that a schema error cannot give.
 */
import { Type, type TSchema } from 'typebox';
import { errorCodes } from '../../domain/error-codes.ts';
import { SUPPORTED_TOPICS } from '../../domain/ws-topics.ts';
import { BalanceList } from './account.ts';
import { DecimalString, InstrumentId, Literals, Nullable, PositiveDecimalString, UnixMillis } from './common.ts';
import { MakerQuote, OpenRfq, Quote, Rfq } from './rfq.ts';

const kind = <K extends string>(name: K) => Type.Literal(name);

/** Matches the parser's bound on a selector's instrument (src/ws/frames.ts). */
const SelectorInstrument = Type.String({ minLength: 1, maxLength: 64 });
export const Topic = Literals(SUPPORTED_TOPICS);
const Seq = Type.Integer({ minimum: 0, description: "Count of the account's frames of this topic, from 1, gap-free; 0 before the first." });
const Resync = Type.Literal(true, { description: 'fromSeq could not be replayed: start over from this baseline.' });

/** `seq` on every account-topic frame; `resync` on a baseline sent because a replay could not be served. */
const Sequenced = Type.Object({ seq: Seq, resync: Type.Optional(Resync) });

/** A REST view sent on a socket: the view's fields beside `kind`. */
function framed<K extends string>(name: K, view: TSchema, extra: TSchema | null) {
  return Type.Intersect([Type.Object({ kind: kind(name) }), view, ...(extra ? [extra] : [])]);
}

// Client frames.
export const AuthFrame = Type.Object({
  kind: kind('auth'),
  accessKey: Type.String({ minLength: 1 }),
  signedAt: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Unix milliseconds, within 30 s of the server clock; once per access key.' }),
  signature: Type.String({ minLength: 1, description: 'base64 HMAC-SHA256 of `<signedAt>\\nGET\\n<socket path>\\n\\n` with the API secret.' }),
  cancelOnDisconnect: Type.Optional(Type.Boolean({ description: 'Maker credentials, /v1/rfq/ws only: cancel open quotes when the last such session ends.' })),
});
export const SubscribeFrame = Type.Object({
  kind: kind('subscribe'),
  topic: Type.String({ minLength: 1, description: 'One of the topics; another answers UNSUPPORTED_CHANNEL.' }),
  instrumentId: Type.Optional(SelectorInstrument),
  fromSeq: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Account topics: replay the frames after this seq.' })),
});
export const UnsubscribeFrame = Type.Object({
  kind: kind('unsubscribe'),
  topic: Type.String({ minLength: 1 }),
  instrumentId: Type.Optional(SelectorInstrument),
});
export const PingFrame = Type.Object({ kind: kind('ping') });
export const PongFrame = Type.Object({ kind: kind('pong') });
const LadderLevel = Type.Tuple([PositiveDecimalString, PositiveDecimalString], { description: '[price, size]: quote token per base unit, base units.' });
export const LadderFrame = Type.Object({
  kind: kind('ladder'),
  instrumentId: SelectorInstrument,
  bids: Type.Array(LadderLevel, { maxItems: 50, description: 'Strictly descending prices.' }),
  asks: Type.Array(LadderLevel, { maxItems: 50, description: 'Strictly ascending prices, above the best bid.' }),
  ts: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Required, not interpreted.' }),
});

// Server frames.
export const HealthFrame = Type.Object({
  kind: kind('health'),
  userId: Type.String(),
  isMaker: Type.Boolean({ description: 'The credential is maker-scoped.' }),
  cancelOnDisconnect: Type.Optional(Type.Boolean({ description: '/v1/rfq/ws: whether this session holds cancel on disconnect.' })),
});
export const SubscribedFrame = Type.Object({
  kind: kind('subscribed'),
  topic: Topic,
  instrumentId: Type.Optional(InstrumentId),
  seq: Type.Optional(Seq),
  resync: Type.Optional(Resync),
});
export const UnsubscribedFrame = Type.Object({
  kind: kind('unsubscribed'),
  topic: Type.String({ description: 'As sent: a topic not held, or unknown, is acknowledged too.' }),
  instrumentId: Type.Optional(SelectorInstrument),
});
export const ErrorFrame = Type.Object({
  kind: kind('error'),
  code: Literals(Object.keys(errorCodes)),
  message: Type.String({ description: 'Human-readable; not a contract.' }),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
const PriceLevel = Type.Object({ price: DecimalString, size: DecimalString });
export const PriceFrame = Type.Object({
  kind: kind('price'),
  instrumentId: InstrumentId,
  bid: Nullable(PriceLevel),
  ask: Nullable(PriceLevel),
  ts: UnixMillis,
  setAside: Type.Optional(Type.Integer({ minimum: 1, description: 'Older crossing maker sides left out of this top of book.' })),
});
export const BalanceSnapshotFrame = framed('balanceSnapshot', BalanceList, Sequenced);
export const RfqStatusFrame = framed('rfqStatus', Rfq, Sequenced);
export const QuoteUpdateFrame = framed('quoteUpdate', Quote, Sequenced);
export const QuoteStatusFrame = framed('quoteStatus', MakerQuote, Sequenced);
export const ProtectionFrame = Type.Intersect([
  Type.Object({
    kind: kind('protection'),
    instrumentId: InstrumentId,
    triggeredAt: UnixMillis,
    reason: Literals(['maxSelectedQuotes', 'maxSelectedNotional']),
  }),
  Sequenced,
]);
export const OpenRfqFrame = framed('rfq', OpenRfq, null);

/** A frame's message: its schema, who sends it, on which paths, and what it is for. */
export interface FrameMessage {
  schema: TSchema;
  direction: 'client' | 'server';
  paths: readonly ('/v1/rfq/ws' | '/v1/rfq/prices/ws')[];
  summary: string;
}

const BOTH = ['/v1/rfq/ws', '/v1/rfq/prices/ws'] as const;
const SESSION = ['/v1/rfq/ws'] as const;

/** Every frame, by message name (the schema's export name without `Frame`). */
export const FRAME_MESSAGES: Record<string, FrameMessage> = {
  auth: { schema: AuthFrame, direction: 'client', paths: BOTH, summary: 'First frame: the signed socket path.' },
  subscribe: { schema: SubscribeFrame, direction: 'client', paths: SESSION, summary: 'Starts a topic (baseline or replay, then pushes).' },
  unsubscribe: { schema: UnsubscribeFrame, direction: 'client', paths: SESSION, summary: 'Ends a topic, or every instrument of it without instrumentId.' },
  clientPing: { schema: PingFrame, direction: 'client', paths: SESSION, summary: 'Answered at once with pong.' },
  clientPong: { schema: PongFrame, direction: 'client', paths: SESSION, summary: 'Answers a server ping.' },
  ladder: { schema: LadderFrame, direction: 'client', paths: ['/v1/rfq/prices/ws'], summary: "Replaces the maker's price ladder for an instrument." },
  health: { schema: HealthFrame, direction: 'server', paths: BOTH, summary: 'The auth frame was accepted.' },
  subscribed: { schema: SubscribedFrame, direction: 'server', paths: SESSION, summary: 'A subscribe was accepted.' },
  unsubscribed: { schema: UnsubscribedFrame, direction: 'server', paths: SESSION, summary: 'A topic ended (asked, or the maker lost its standing).' },
  error: { schema: ErrorFrame, direction: 'server', paths: BOTH, summary: 'A refused frame; AUTH_REQUIRED closes 4001.' },
  serverPing: { schema: PingFrame, direction: 'server', paths: SESSION, summary: 'Keepalive; two unanswered close 4002.' },
  serverPong: { schema: PongFrame, direction: 'server', paths: SESSION, summary: 'Answers a client ping.' },
  price: { schema: PriceFrame, direction: 'server', paths: SESSION, summary: 'prices: top of book across makers, on change.' },
  balanceSnapshot: { schema: BalanceSnapshotFrame, direction: 'server', paths: SESSION, summary: "balances: the account's balances after a committed change." },
  rfqStatus: { schema: RfqStatusFrame, direction: 'server', paths: SESSION, summary: 'rfqStatus: an RFQ of the account, per transition.' },
  quoteUpdate: { schema: QuoteUpdateFrame, direction: 'server', paths: SESSION, summary: "quotes: a quote on the account's RFQ, per quote, re-quote or cancel." },
  quoteStatus: { schema: QuoteStatusFrame, direction: 'server', paths: SESSION, summary: "quoteStatus: the maker's quote, per transition." },
  protection: { schema: ProtectionFrame, direction: 'server', paths: SESSION, summary: "quoteStatus: the maker's market-maker protection tripped." },
  rfq: { schema: OpenRfqFrame, direction: 'server', paths: SESSION, summary: 'openRfqs: a new open RFQ that reaches this maker.' },
};

/** The message a server frame is, by its `kind`; ping and pong are named apart from the client's. */
export function serverMessageOf(frameKind: string): string {
  return frameKind === 'ping' ? 'serverPing' : frameKind === 'pong' ? 'serverPong' : frameKind;
}
