/**
 * Preloaded into the service by bench/ws.ts (`node --import bench/lib/quote-hop-probe.ts`), never
 * by the service itself: stamps each quote's way from commit to the taker's socket, so the quote
 * step can tell where the time between a maker's quote and the taker's `quoteUpdate` goes.
 * Per quote (keyed `rfqId|makerReceives.amount`, as the bench names its frames), in this process's
 * wall clock (performance.timeOrigin + now(), comparable with the bench process on one machine):
 *   - `commit`: the group-committed `rfq_write_quotes` call that wrote it returned (commit seen);
 *   - `poll`: the dispatcher read that delivered it started, or (since the committed rows go to the
 *     dispatcher directly) the hand-over of its commit's rows to the dispatcher;
 *   - `deliver`: the hub handed its `quoteUpdate` to the taker's sessions (ws.send).
 * Per dispatcher read: start, end, rows, and what woke it; per hole: the time spent deciding.
 * Event-loop delay too. On SIGUSR2 it writes everything to $BENCH_HOP_PROBE_FILE and starts afresh.
 * It patches prototypes and the pg client at run time, so production code carries no probe.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import pg from 'pg';
import { OutboxDispatcher } from '../../src/ws/outbox-dispatcher.ts';
import { SessionHub } from '../../src/ws/hub.ts';

export interface HopProbeSnapshot {
  /** key -> [commit, poll start, deliver] (absolute ms; 0 when not seen). */
  quotes: Record<string, [number, number, number]>;
  /** [start, end, rows delivered, woken (1) or timer (0)] per dispatcher read. */
  polls: Array<[number, number, number, number]>;
  /** Hand-overs of a local commit's rows to the dispatcher (`committed`), when it has them. */
  handovers: number;
  /** [start, end, dead (1) or alive (0)] per hole check. */
  holes: Array<[number, number, number]>;
  /** [sent, returned, items] per rfq_write_quotes call. */
  batches: Array<[number, number, number]>;
  wakes: number;
  eventLoopDelay: { p50: number; p99: number; max: number };
}

const file = process.env.BENCH_HOP_PROBE_FILE;
if (file) install(file);

function install(target: string): void {
  const now = () => performance.timeOrigin + performance.now();
  let quotes = new Map<string, [number, number, number]>();
  let polls: HopProbeSnapshot['polls'] = [];
  let holes: HopProbeSnapshot['holes'] = [];
  let batches: HopProbeSnapshot['batches'] = [];
  let wakes = 0;
  let handovers = 0;
  let woken = false;
  let pollStart = 0;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const entry = (key: string) => {
    let e = quotes.get(key);
    if (!e) quotes.set(key, (e = [0, 0, 0]));
    return e;
  };

  type QueryFn = (this: pg.Client, ...args: unknown[]) => unknown;
  const proto = pg.Client.prototype as unknown as { query: QueryFn };
  const originalQuery = proto.query;
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : first && typeof first === 'object' && 'text' in first ? String((first as { text: unknown }).text) : '';
    const result = originalQuery.apply(this, args);
    if (text.includes('rfq_write_quotes(') && Array.isArray(args[1]) && typeof args[1][0] === 'string' && result instanceof Promise) {
      const sent = now();
      const items = JSON.parse(args[1][0]) as Array<{ taker_frame: { rfqId: string; makerReceives: { amount: string } } }>;
      void result.then(() => {
        const at = now();
        batches.push([sent, at, items.length]);
        for (const it of items) entry(`${it.taker_frame.rfqId}|${it.taker_frame.makerReceives.amount}`)[0] = at;
      }, () => undefined);
    }
    return result;
  };

  const dispatcher = OutboxDispatcher.prototype as unknown as { poll(): Promise<number>; wake(): void; holeIsDead(): Promise<boolean>; committed?: (events: unknown) => void };
  const originalCommitted = dispatcher.committed;
  if (originalCommitted) {
    dispatcher.committed = function (this: unknown, events: unknown) {
      handovers += 1;
      const outer = pollStart;
      pollStart = now();
      try {
        return originalCommitted.call(this, events);
      } finally {
        pollStart = outer;
      }
    };
  }
  const originalWake = dispatcher.wake;
  dispatcher.wake = function (this: unknown) {
    wakes += 1;
    woken = true;
    return originalWake.call(this);
  };
  const originalPoll = dispatcher.poll;
  dispatcher.poll = async function (this: unknown) {
    const start = now();
    const byWake = woken ? 1 : 0;
    woken = false;
    pollStart = start;
    const n = await originalPoll.call(this);
    polls.push([start, now(), n, byWake]);
    return n;
  };
  const originalHole = dispatcher.holeIsDead;
  dispatcher.holeIsDead = async function (this: unknown) {
    const start = now();
    const dead = await originalHole.call(this);
    holes.push([start, now(), dead ? 1 : 0]);
    return dead;
  };

  const hub = SessionHub.prototype as unknown as { deliver(accountId: string, topic: string, frame: Record<string, unknown>): void };
  const originalDeliver = hub.deliver;
  hub.deliver = function (this: unknown, accountId: string, topic: string, frame: Record<string, unknown>) {
    originalDeliver.call(this, accountId, topic, frame);
    if (topic === 'quotes' && frame.kind === 'quoteUpdate') {
      const amount = (frame.makerReceives as { amount?: string } | undefined)?.amount;
      const e = entry(`${String(frame.rfqId)}|${amount}`);
      e[1] = pollStart;
      e[2] = now();
    }
  };

  process.on('SIGUSR2', () => {
    const snapshot: HopProbeSnapshot = {
      quotes: Object.fromEntries(quotes),
      polls,
      holes,
      batches,
      wakes,
      handovers,
      eventLoopDelay: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    };
    quotes = new Map();
    polls = [];
    holes = [];
    batches = [];
    wakes = 0;
    handovers = 0;
    loop.reset();
    writeFileSync(`${target}.tmp`, JSON.stringify(snapshot));
    renameSync(`${target}.tmp`, target);
  });
}
