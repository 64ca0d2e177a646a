/**
 * A self-healing session on `/v1/rfq/ws`. It authenticates with the signed `auth` frame, answers
 * server pings and sends its own, treats two of its pings with nothing received in between as a
 * dead server, and reconnects with backoff. After every reconnect it re-authenticates and
 * re-subscribes each topic it holds; an account topic (balances, rfqStatus, quotes,
 * quoteStatus) is re-subscribed with `fromSeq` = the last `seq` it delivered (or, before any
 * frame, the `seq` its `subscribed` ack carried), so the server replays what was missed or sends
 * a fresh baseline marked `resync: true`.
 *
 *   const session = client.wsSession();          // or new RfqWsSession({ baseUrl, credentials })
 *   session.on('frame', (frame) => { if (frame.kind === 'quoteUpdate') ... });
 *   await session.connect();                      // resolves with the `health` frame
 *   await session.subscribe('quotes');            // resolves on `subscribed`; rejects on a refusal
 *   const update = await session.next((f) => f.kind === 'quoteUpdate', 5000);
 *   session.close();
 *
 * Delivery: frames arrive in server order. A frame whose `seq` is below the last one delivered
 * for its topic (a stale replay) is dropped; a frame with an equal `seq` may repeat after a
 * reconnect (baselines carry the topic's current `seq`), so handle frames as idempotent state.
 */
import { ACCOUNT_TOPICS, accountTopicOf, WS_PATH, type AccountTopic, type ServerFrame, type Topic, type UnknownFrame } from './frames.ts';
import { ReconnectingSocket, SocketClosedError, type SocketOptions } from './reconnecting-socket.ts';

export interface Selector {
  topic: Topic;
  /** The `prices` and `openRfqs` topics take an instrument. */
  instrumentId?: string;
}

/** A `subscribe` the server refused (`UNSUPPORTED_CHANNEL`, `INVALID_REQUEST`): the topic is not held. */
export class SubscriptionRefused extends Error {
  override readonly name = 'SubscriptionRefused';
  readonly code: string;
  constructor(code: string, message: string) {
    super(`${code}: ${message}`);
    this.code = code;
  }
}

function keyOf(selector: Selector): string {
  return selector.instrumentId === undefined ? selector.topic : `${selector.topic}:${selector.instrumentId}`;
}

const isAccountTopic = (topic: Topic): topic is AccountTopic => (ACCOUNT_TOPICS as readonly string[]).includes(topic);

export class RfqWsSession extends ReconnectingSocket {
  /** Topics held: restored on every reconnect. */
  readonly #held = new Map<string, Selector>();
  /** Callers awaiting a topic's `subscribed`. */
  readonly #waiting = new Map<string, Array<{ resolve: () => void; reject: (error: Error) => void }>>();
  /**
   * Subscribes sent on the current socket and not yet answered, oldest first. The server handles
   * a connection's frames strictly in order and its refusal names no topic, so an error frame
   * answers the oldest one.
   */
  #unanswered: string[] = [];
  readonly #lastSeq = new Map<AccountTopic, number>();

  constructor(options: SocketOptions) {
    super(options, WS_PATH, 'frames');
  }

  /** What a reconnect resumes an account topic from: the last `seq` delivered, or its ack's before any frame. */
  lastSeq(topic: AccountTopic): number | undefined {
    return this.#lastSeq.get(topic);
  }

  /** Topics currently held (requested and not refused). */
  subscriptions(): Selector[] {
    return [...this.#held.values()];
  }

  /**
   * Holds the topic for the life of the session (across reconnects). Resolves on `subscribed`;
   * rejects with SubscriptionRefused when the server refuses it, or when the session ends first.
   * While disconnected, the subscribe is sent after the next successful authentication.
   */
  subscribe(topic: Topic, params: { instrumentId?: string } = {}): Promise<void> {
    const selector: Selector = params.instrumentId === undefined ? { topic } : { topic, instrumentId: params.instrumentId };
    const key = keyOf(selector);
    if (this.state === 'closed') return Promise.reject(new SocketClosedError('session closed'));
    this.#held.set(key, selector);
    const done = new Promise<void>((resolve, reject) => {
      const list = this.#waiting.get(key) ?? [];
      list.push({ resolve, reject });
      this.#waiting.set(key, list);
    });
    this.#sendSubscribe(key, selector);
    return done;
  }

  /** Stops holding the topic; the server acknowledges even a topic not held. */
  unsubscribe(topic: Topic, params: { instrumentId?: string } = {}): void {
    const selector: Selector = params.instrumentId === undefined ? { topic } : { topic, instrumentId: params.instrumentId };
    this.#held.delete(keyOf(selector));
    if (isAccountTopic(topic)) this.#lastSeq.delete(topic);
    this.send({ kind: 'unsubscribe', ...selector });
  }

  #sendSubscribe(key: string, selector: Selector): void {
    const fromSeq = isAccountTopic(selector.topic) ? this.#lastSeq.get(selector.topic) : undefined;
    if (this.send({ kind: 'subscribe', ...selector, ...(fromSeq === undefined ? {} : { fromSeq }) })) this.#unanswered.push(key);
  }

  protected restore(): void {
    for (const [key, selector] of this.#held) this.#sendSubscribe(key, selector);
  }

  protected override accept(frame: ServerFrame | UnknownFrame): boolean {
    if (frame.kind === 'subscribed') {
      const key = keyOf(frame as Selector);
      // An account topic's ack carries its current `seq`: until a frame is delivered, that is
      // where a reconnect resumes, so frames committed while the socket was down are replayed
      // rather than summed up by a fresh baseline.
      const acked = (frame as { seq?: unknown }).seq;
      const ackedTopic = (frame as { topic?: unknown }).topic;
      if (typeof acked === 'number' && typeof ackedTopic === 'string' && isAccountTopic(ackedTopic as Topic) && !this.#lastSeq.has(ackedTopic as AccountTopic)) this.#lastSeq.set(ackedTopic as AccountTopic, acked);
      const index = this.#unanswered.indexOf(key);
      if (index >= 0) this.#unanswered.splice(index, 1);
      this.#settle(key, null);
      return true;
    }
    if (frame.kind === 'error') {
      const { code, message } = frame as { code: string; message: string };
      if ((code === 'UNSUPPORTED_CHANNEL' || code === 'INVALID_REQUEST') && this.#unanswered.length > 0) {
        const key = this.#unanswered.shift()!;
        this.#held.delete(key);
        this.#settle(key, new SubscriptionRefused(code, message));
      }
      return true;
    }
    const topic = accountTopicOf(frame.kind);
    const seq = (frame as { seq?: unknown }).seq;
    if (topic === null || typeof seq !== 'number') return true;
    const last = this.#lastSeq.get(topic);
    if (last !== undefined && seq < last && (frame as { resync?: unknown }).resync !== true) return false;
    this.#lastSeq.set(topic, last === undefined || (frame as { resync?: unknown }).resync === true ? seq : Math.max(last, seq));
    return true;
  }

  protected forgetSocket(finalError: Error | null): void {
    this.#unanswered = [];
    if (finalError === null) return;
    for (const key of [...this.#waiting.keys()]) this.#settle(key, finalError);
  }

  #settle(key: string, error: Error | null): void {
    const waiters = this.#waiting.get(key);
    if (!waiters) return;
    this.#waiting.delete(key);
    for (const waiter of waiters) {
      if (error) waiter.reject(error);
      else waiter.resolve();
    }
  }
}
