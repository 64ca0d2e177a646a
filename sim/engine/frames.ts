/**
 * One actor's WebSocket session, checked as it runs: per account topic, pushed frames carry
 * consecutive `seq` values after the `subscribed` ack (a baseline repeats the ack's `seq`, a
 * `resync` baseline restarts the count; none goes back); and each RFQ's and quote's status frames move only along
 * one edge of the domain's state tables at a time. The session reconnects by itself across node
 * restarts and resumes with `fromSeq`, so a restart that loses or repeats a frame shows here.
 */
import type { RfqClient } from '../../src/client/rfq-client.ts';
import type { RfqWsSession } from '../../src/client/ws-session.ts';
import type { AccountTopic } from '../../src/client/frames.ts';
import type { Findings } from './findings.ts';
import { mayFollow, quoteGraph, rfqGraph } from './transitions.ts';

const TOPIC_OF: Record<string, AccountTopic> = { balanceSnapshot: 'balances', rfqStatus: 'rfqStatus', quoteUpdate: 'quotes', quoteStatus: 'quoteStatus' };

export class FrameWatch {
  readonly session: RfqWsSession;
  readonly #seq = new Map<string, number>();
  readonly #rfqStatus = new Map<string, string>();
  readonly #quoteStatus = new Map<string, string>();
  readonly actor: string;
  frames = 0;
  /** Quote ids this WebSocket was told about since the checks last looked (a maker's must all be its own). */
  readonly quoteIds = new Set<string>();
  /** The balances of the last `balanceSnapshot` delivered (each is the latest committed snapshot). */
  lastBalances: Array<{ token: string; available: string; locked: string; total: string }> | null = null;
  /** Where `price` frames go (prices.ts): they carry no `seq` and are not state. */
  onPrice: ((frame: Record<string, unknown>) => void) | null = null;

  constructor(actor: string, client: RfqClient, findings: Findings) {
    this.actor = actor;
    this.session = client.wsSession({ backoff: { initialDelayMs: 50, maxDelayMs: 500 } });
    this.session.on('frame', (received) => {
      const frame = received as unknown as Record<string, unknown>;
      this.frames++;
      const kind = String(frame['kind']);
      if (kind === 'price') return this.onPrice?.(frame);
      if (kind === 'subscribed' && typeof frame['seq'] === 'number') {
        // A first subscription's count starts at its ack (a baseline may hold no frame); a resumed
        // one (`fromSeq`) is answered with the topic's current seq and then replays what follows
        // the last frame delivered, which is where its count goes on.
        const topic = String(frame['topic']);
        if (!this.#seq.has(topic)) this.#seq.set(topic, frame['seq']);
        return;
      }
      const topic = TOPIC_OF[kind];
      if (!topic || typeof frame['seq'] !== 'number') return;
      const seq = frame['seq'];
      const last = this.#seq.get(topic);
      if (frame['resync'] !== true && last !== undefined) {
        if (seq < last) {
          // Older than a frame already delivered: the session drops such a frame, so this is a repeat it let through.
          findings.add('wsSeqBack', `${actor} ${topic}: seq ${last} then ${seq}`);
          return;
        }
        // A baseline repeats the ack's seq; anything else continues the count.
        if (seq > last + 1) findings.add('wsSeqGap', `${actor} ${topic}: seq ${last} then ${seq}`);
      }
      this.#seq.set(topic, seq);
      if (kind === 'balanceSnapshot') this.lastBalances = frame['balances'] as NonNullable<FrameWatch['lastBalances']>;
      if (kind === 'rfqStatus') this.#status(findings, this.#rfqStatus, rfqGraph, String(frame['id']), String(frame['status']), 'rfqStatus');
      if (kind === 'quoteStatus' || kind === 'quoteUpdate') this.quoteIds.add(String(frame['quoteId']));
      if (kind === 'quoteStatus' || kind === 'quoteUpdate') this.#status(findings, this.#quoteStatus, quoteGraph, String(frame['quoteId']), String(frame['status']), kind);
    });
  }

  /** What a finding about this session says of it: its connection state and last seq per topic. */
  describe(): string {
    return `session ${this.session.state}, last seq ${JSON.stringify(Object.fromEntries(this.#seq))}`;
  }

  #status(findings: Findings, seen: Map<string, string>, graph: typeof rfqGraph, id: string, status: string, kind: string): void {
    const before = seen.get(id);
    // Frames are per transition, but a session that resumed after a restart may have been told the
    // intermediate steps by a baseline it never saw: reachability is the bound across a reconnect.
    if (before !== undefined && !mayFollow(graph, before, status, 'reachable')) findings.add('wsTransition', `${this.actor} ${kind} ${id}: ${before} -> ${status}`);
    seen.set(id, status);
  }

  async open(topics: AccountTopic[]): Promise<void> {
    await this.session.connect();
    for (const topic of topics) await this.session.subscribe(topic);
  }

  close(): void {
    this.session.close();
  }
}
