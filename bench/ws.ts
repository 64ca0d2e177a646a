/**
 * WebSocket benchmark (`node bench/ws.ts`, `--quick`, `--help`). The clients live in this process;
 * the service (node src/runtime/main.ts on a fresh PostgreSQL database) and the bare `ws` server
 * (bench/ws-baseline-server.ts) each run in their own process on the same cores. Phases:
 *   1. bare: N plain `ws` clients of the bare server; 5 broadcasts/s of a 300-byte frame, latency
 *      from the control message to the LAST client's receipt, at 1,000 clients and at N; RSS per
 *      connection;
 *   2. prices: N authenticated sessions (several per account) subscribed to one instrument; a maker
 *      streams ladders at 5/s with a new best bid each time; tick (ladder sent) to last receipt, at
 *      1,000 sessions and at N; conflated ticks counted; every session must end on the last tick;
 *      service RSS per idle authenticated session;
 *   3. quotes: makers re-quote at 500/s offered (open loop) on RFQs whose takers hold a `quotes`
 *      subscription; latency from the REST send to the taker's `quoteUpdate` receipt, beside the
 *      bare insert route (bench/baseline-server.ts) at the same offered rate.
 * Every loop is bounded in count and time. Results go to bench/results/ws-<stamp>.json.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { AdminClient } from '../src/client/admin-client.ts';
import { signCanonical, wsAuthCanonical } from '../src/domain/auth/hmac.ts';
import { startOwnService } from './lib/own-service.ts';
import { HttpClient, inParallel, openLoop, Signer, type LoadResult } from './lib/http-load.ts';
import { loadAverage, processCpuMs, repoRoot, spawnServer, stopAllServers } from './lib/processes.ts';
import { backendPids } from './lib/database.ts';
import { round, roundSummary, summarize, type LatencySummary } from './lib/stats.ts';
import type { HopProbeSnapshot } from './lib/quote-hop-probe.ts';
import { createRfq, makeMakers, makeTakers, quoteBody, seedReferenceData, type Actor } from './lib/venue.ts';

const HELP = `usage: node bench/ws.ts [options]
  --quick            2,000 sessions, 4 s per step (about 1.5 min)
  --sessions <n>     sessions / bare clients (default 5000)
  --duration <s>     seconds per tick and quote step (default 10)
  --quote-rate <n>   offered quotes per second (default 500)
  --only <list>      bare,prices,quotes (default all)
  --db <url>         PostgreSQL to create the bench database on
  --results <file>   write the JSON results there (default bench/results/ws-<stamp>.json);
                     bench/run.ts's fan-out phase reads them
  --no-hop-probe     do not preload bench/lib/quote-hop-probe.ts (the quote step's breakdown)`;

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sessions: { type: 'string' },
    duration: { type: 'string' },
    'quote-rate': { type: 'string', default: '500' },
    only: { type: 'string', default: 'bare,prices,quotes' },
    db: { type: 'string' },
    results: { type: 'string' },
    'hop-probe': { type: 'boolean', default: true },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});
if (args.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const sessions = Number(args.sessions ?? (args.quick ? 2000 : 5000));
const durationSecs = Number(args.duration ?? (args.quick ? 4 : 10));
const quoteRate = Number(args['quote-rate']);
const phases = new Set(args.only.split(','));
const TICKS_PER_SEC = 5;
const SMALL = Math.min(1000, sessions);
const ACCOUNT_SESSIONS = 250;
const INSTRUMENT = 'ETH-USDC-SPOT';
const adminUrl = args.db ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const started = Date.now();
const log = (line: string) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The servers this run started, each in its own process group, are stopped on SIGINT / SIGTERM
// (the main benchmark's fan-out phase sends SIGTERM when it is interrupted): none is left behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    void stopAllServers().then(() => process.exit(130));
  });
}

/** Resident memory of a process in KiB (from /proc). */
async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

/** Opens `url` sockets in bounded parallel batches; `onOpen` may finish a handshake. */
async function connectMany(url: string, count: number, onOpen: (ws: WebSocket, i: number) => Promise<void>, offset = 0): Promise<WebSocket[]> {
  return inParallel(Array.from({ length: count }, (_, i) => i + offset), 100, async (i) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('connect timeout')), 30_000);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve();
      });
      ws.once('error', reject);
    });
    await onOpen(ws, i);
    return ws;
  });
}

/** Per tick: when it was sent, and the latest receipt over all clients; and which tick each client saw last. */
class TickRecorder {
  readonly sentAt: number[] = [];
  readonly lastReceipt: number[] = [];
  readonly receipts: number[] = [];
  readonly lastSeen: Int32Array;

  constructor(clients: number) {
    this.lastSeen = new Int32Array(clients).fill(-1);
  }

  received(client: number, tick: number): void {
    const now = performance.now();
    if (tick < 0 || tick >= this.sentAt.length) return;
    this.lastReceipt[tick] = Math.max(this.lastReceipt[tick] ?? 0, now);
    this.receipts[tick] = (this.receipts[tick] ?? 0) + 1;
    if (tick > (this.lastSeen[client] ?? -1)) this.lastSeen[client] = tick;
  }

  /** Sends `count` ticks at TICKS_PER_SEC, then waits (bounded) for the last to reach every client. */
  async run(count: number, clients: number, send: (tick: number) => void): Promise<TickResult> {
    const first = this.sentAt.length;
    const t0 = performance.now();
    for (let k = 0; k < count; k++) {
      const due = t0 + (k * 1000) / TICKS_PER_SEC;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      this.sentAt.push(performance.now());
      send(first + k);
    }
    const last = first + count - 1;
    for (let waited = 0; waited < 5000 && (this.receipts[last] ?? 0) < clients; waited += 20) await sleep(20);
    const latencies: number[] = [];
    let delivered = 0;
    for (let k = first; k <= last; k++) {
      if (this.lastReceipt[k] !== undefined) latencies.push(this.lastReceipt[k]! - this.sentAt[k]!);
      delivered += this.receipts[k] ?? 0;
    }
    let onLatest = 0;
    for (let c = 0; c < clients; c++) if (this.lastSeen[c] === last) onLatest++;
    return { clients, ticks: count, toLastReceipt: roundSummary(summarize(latencies)), conflated: count * clients - delivered, clientsOnLatestTick: onLatest };
  }
}

export interface TickResult {
  clients: number;
  ticks: number;
  /** Tick sent -> the last client's receipt of it. */
  toLastReceipt: LatencySummary;
  /** Client-tick pairs never delivered (superseded while the socket was behind). */
  conflated: number;
  clientsOnLatestTick: number;
}

export interface WsResults {
  startedAt: string;
  machine: { cpus: number; node: string; loadAverageStart: string; loadAverageEnd?: string };
  config: Record<string, unknown>;
  bare?: { small: TickResult; large: TickResult; rssPerConnectionKiB: number };
  prices?: { small: TickResult; large: TickResult; rssPerSessionKiB: number; serviceRssKiB: number; serverConflated: number | null };
  quotes?: { offeredRate: number; rest: LoadResult; toFrame: LatencySummary & { missing: number }; bareInsert: LoadResult; hops?: QuoteHops };
  failures: string[];
}

async function runBare(results: WsResults): Promise<void> {
  const bare = await spawnServer({ name: 'ws-bare', args: ['bench/ws-baseline-server.ts'], env: { ...process.env, PORT: '0' }, cwd: repoRoot, ready: /listening (http:\/\/\S+)/ });
  try {
    const url = bare.url.replace('http', 'ws');
    const recorder = new TickRecorder(sessions);
    const rss0 = await rssKiB(bare.pid);
    const attach = async (ws: WebSocket, i: number) => {
      ws.on('message', (data) => recorder.received(i, (JSON.parse(data.toString()) as { n: number }).n));
    };
    log(`bare: connecting ${SMALL} clients`);
    const clients = await connectMany(`${url}/`, SMALL, attach);
    const control = new WebSocket(`${url}/control`);
    await new Promise((resolve) => control.once('open', resolve));
    const send = (n: number) => control.send(JSON.stringify({ n }));
    log(`bare: ${durationSecs * TICKS_PER_SEC} broadcasts to ${SMALL}`);
    const small = await recorder.run(durationSecs * TICKS_PER_SEC, SMALL, send);
    log(`bare: connecting up to ${sessions} clients`);
    clients.push(...(await connectMany(`${url}/`, sessions - SMALL, attach, SMALL)));
    await sleep(1000);
    const rss1 = await rssKiB(bare.pid);
    log(`bare: ${durationSecs * TICKS_PER_SEC} broadcasts to ${sessions}`);
    const large = await recorder.run(durationSecs * TICKS_PER_SEC, sessions, send);
    results.bare = { small, large, rssPerConnectionKiB: round((rss1 - rss0) / sessions) };
    control.close();
    for (const ws of clients) ws.terminate();
  } finally {
    await bare.stop();
  }
}

function authFrame(actor: Actor, signedAt: number, socketPath: string): string {
  const { accessKey, secret } = actor.signer.credentials;
  return JSON.stringify({ kind: 'auth', accessKey, signedAt, signature: signCanonical(secret, wsAuthCanonical(signedAt, socketPath)) });
}

/** Sends `frame`, resolves with the first frame that satisfies `match` (bounded wait). */
function request(ws: WebSocket, frame: string, match: (f: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${frame.slice(0, 40)}`)), 30_000);
    const onMessage = (data: WebSocket.RawData) => {
      const parsed = JSON.parse(data.toString()) as Record<string, unknown>;
      if (parsed.kind === 'error') {
        clearTimeout(timer);
        ws.off('message', onMessage);
        reject(new Error(JSON.stringify(parsed)));
      } else if (match(parsed)) {
        clearTimeout(timer);
        ws.off('message', onMessage);
        resolve(parsed);
      }
    };
    ws.on('message', onMessage);
    ws.send(frame);
  });
}

/** Signing times are claimed once per key: each session of an account takes the next millisecond. */
const signedAtBase = Date.now();
const signedAtUsed = new Map<string, number>();
function nextSignedAt(actor: Actor): number {
  const n = signedAtUsed.get(actor.signer.credentials.accessKey) ?? 0;
  signedAtUsed.set(actor.signer.credentials.accessKey, n + 1);
  return Math.max(signedAtBase + n, Date.now() - 20_000 + n);
}

async function openSession(actor: Actor, ws: WebSocket): Promise<void> {
  // The server's application keepalive expects pongs.
  ws.on('message', (data) => {
    if ((data as Buffer).length < 20 && data.toString() === '{"kind":"ping"}') ws.send('{"kind":"pong"}');
  });
  await request(ws, authFrame(actor, nextSignedAt(actor), '/v1/rfq/ws'), (f) => f.kind === 'health');
}

/** Where a quote's time to the taker's frame goes (bench/lib/quote-hop-probe.ts stamps the service side). */
export interface QuoteHops {
  /** Quotes with every stamp (of those whose frame arrived). */
  quotes: number;
  /**
   * Per segment, over those quotes: REST send -> batch commit seen, commit -> the dispatcher read
   * (or hand-over of the commit's rows) that delivered it started, that start -> hub delivery,
   * delivery -> taker receipt, commit -> REST response received.
   */
  segments: Record<'sendToCommit' | 'commitToRead' | 'readToDeliver' | 'deliverToReceipt' | 'commitToResponse', LatencySummary>;
  /** The same segments' means over the slowest 1% of quotes (by send -> frame): where the tail goes. */
  tailMeans: Record<string, number>;
  reads: { count: number; woken: number; duration: LatencySummary; rowsMean: number };
  holes: { checks: number; alive: number; totalMs: number };
  batches: { count: number; itemsMean: number; duration: LatencySummary };
  wakes: number;
  handovers: number;
  /** CPU of the service process and of its PostgreSQL backends over the step, per quote (ms): which side runs out first. */
  cpuPerQuote: { service: number; database: number; wallMs: number };
  eventLoopDelay: { p50: number; p99: number; max: number };
}

function quoteHops(probe: HopProbeSnapshot, stamps: Map<string, { sent: number; response?: number; frame?: number }>, cpuPerQuote: QuoteHops['cpuPerQuote']): QuoteHops {
  const seg = { sendToCommit: [] as number[], commitToRead: [] as number[], readToDeliver: [] as number[], deliverToReceipt: [] as number[], commitToResponse: [] as number[] };
  const rows: Array<{ total: number; parts: Record<string, number> }> = [];
  for (const [key, s] of stamps) {
    const p = probe.quotes[key];
    if (!p || s.frame === undefined || s.response === undefined || !p[0] || !p[1] || !p[2]) continue;
    const parts = { sendToCommit: p[0] - s.sent, commitToRead: p[1] - p[0], readToDeliver: p[2] - p[1], deliverToReceipt: s.frame - p[2], commitToResponse: s.response - p[0] };
    for (const [k, v] of Object.entries(parts)) seg[k as keyof typeof seg].push(v);
    rows.push({ total: s.frame - s.sent, parts });
  }
  rows.sort((a, b) => b.total - a.total);
  const tail = rows.slice(0, Math.max(1, Math.ceil(rows.length / 100)));
  const tailMeans: Record<string, number> = { sendToFrame: round(tail.reduce((a, r) => a + r.total, 0) / tail.length) };
  for (const k of Object.keys(seg)) tailMeans[k] = round(tail.reduce((a, r) => a + r.parts[k]!, 0) / tail.length);
  return {
    quotes: rows.length,
    segments: Object.fromEntries(Object.entries(seg).map(([k, v]) => [k, roundSummary(summarize(v))])) as QuoteHops['segments'],
    tailMeans,
    reads: {
      count: probe.polls.length,
      woken: probe.polls.filter((p) => p[3] === 1).length,
      duration: roundSummary(summarize(probe.polls.map((p) => p[1] - p[0]))),
      rowsMean: round(probe.polls.reduce((a, p) => a + p[2], 0) / Math.max(1, probe.polls.length)),
    },
    holes: { checks: probe.holes.length, alive: probe.holes.filter((h) => h[2] === 0).length, totalMs: round(probe.holes.reduce((a, h) => a + h[1] - h[0], 0)) },
    batches: {
      count: probe.batches.length,
      itemsMean: round(probe.batches.reduce((a, b) => a + b[2], 0) / Math.max(1, probe.batches.length)),
      duration: roundSummary(summarize(probe.batches.map((b) => b[1] - b[0]))),
    },
    wakes: probe.wakes,
    handovers: probe.handovers ?? 0,
    cpuPerQuote,
    eventLoopDelay: { p50: round(probe.eventLoopDelay.p50), p99: round(probe.eventLoopDelay.p99), max: round(probe.eventLoopDelay.max) },
  };
}

/** Asks the preloaded hop probe for its snapshot (SIGUSR2) and reads it (bounded wait). */
async function readHopProbe(pid: number, file: string): Promise<HopProbeSnapshot | null> {
  await rm(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 5000; waited += 50) {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text !== null) return JSON.parse(text) as HopProbeSnapshot;
    await sleep(50);
  }
  return null;
}

async function runService(results: WsResults): Promise<void> {
  const hopProbe = phases.has('quotes') && args['hop-probe'] ? path.join(await mkdtemp(path.join(os.tmpdir(), 'rfq-bench-hops-')), 'hops.json') : null;
  const own = await startOwnService({
    adminUrl,
    name: 'ws',
    poolSize: 10,
    env: { RFQ_WS_MAX_SESSIONS_PER_ACCOUNT: String(ACCOUNT_SESSIONS), RFQ_WS_MAX_UNAUTHENTICATED_PER_SOURCE: '100000', ...(hopProbe ? { BENCH_HOP_PROBE_FILE: hopProbe } : {}) },
    ...(hopProbe ? { imports: ['bench/lib/quote-hop-probe.ts'] } : {}),
  });
  const { service, db } = own;
  try {
    const svc = service;
    log(`service pid ${svc.pid} at ${svc.url} (bench database ${db.name})`);
    const admin = new AdminClient(svc.url, svc.adminToken);
    await seedReferenceData(admin, { maxWindowMs: 600_000, settlementHeadroomSecs: 3600 });
    const accountsNeeded = Math.ceil(sessions / ACCOUNT_SESSIONS);
    log(`signing in ${accountsNeeded} accounts and 20 makers (SIWE)`);
    const accounts = await makeTakers(svc.url, admin, Math.max(accountsNeeded, 20), '1000000000');
    const makers = await makeMakers(svc.url, admin, 20);
    const wsUrl = `${svc.url.replace('http', 'ws')}/v1/rfq/ws`;

    if (phases.has('prices')) {
      const recorder = new TickRecorder(sessions);
      await sleep(1000);
      const rss0 = await rssKiB(svc.pid);
      const attach = async (ws: WebSocket, i: number) => {
        await openSession(accounts[Math.floor(i / ACCOUNT_SESSIONS)]!, ws);
        await request(ws, JSON.stringify({ kind: 'subscribe', topic: 'prices', instrumentId: INSTRUMENT }), (f) => f.kind === 'subscribed');
        ws.on('message', (data) => {
          if ((data as Buffer).length < 40) return; // ping, pong
          const frame = JSON.parse(data.toString()) as { kind: string; bid?: { price: string } | null };
          // The bench encodes the tick number in the price (2000 + tick): a label, not money.
          // eslint-disable-next-line rfq/no-float-amount
          if (frame.kind === 'price' && frame.bid) recorder.received(i, Number(frame.bid.price) - 2000);
        });
      };
      log(`prices: ${SMALL} authenticated sessions subscribing`);
      const clients = await connectMany(wsUrl, SMALL, attach);
      const ingest = new WebSocket(`${svc.url.replace('http', 'ws')}/v1/rfq/prices/ws`);
      await new Promise((resolve) => ingest.once('open', resolve));
      await request(ingest, authFrame(makers[0]!, nextSignedAt(makers[0]!), '/v1/rfq/prices/ws'), (f) => f.kind === 'health');
      ingest.on('message', (data) => log(`ingest: ${data.toString().slice(0, 200)}`));
      // Each tick is a new best bid (2000 + tick), so each is one top-of-book change.
      const send = (tick: number) => ingest.send(JSON.stringify({ kind: 'ladder', instrumentId: INSTRUMENT, bids: [[String(2000 + tick), '1']], asks: [['100000', '1']], ts: Date.now() }));
      log(`prices: ${durationSecs * TICKS_PER_SEC} ticks to ${SMALL}`);
      const small = await recorder.run(durationSecs * TICKS_PER_SEC, SMALL, send);
      log(`prices: up to ${sessions} sessions`);
      clients.push(...(await connectMany(wsUrl, sessions - SMALL, attach, SMALL)));
      await sleep(1000);
      const rss1 = await rssKiB(svc.pid);
      log(`prices: ${durationSecs * TICKS_PER_SEC} ticks to ${sessions}`);
      const large = await recorder.run(durationSecs * TICKS_PER_SEC, sessions, send);
      results.prices = { small, large, rssPerSessionKiB: round((rss1 - rss0) / sessions), serviceRssKiB: rss1, serverConflated: null };
      ingest.close();
      for (const ws of clients) ws.terminate();
      await sleep(1000);
    }

    if (phases.has('quotes')) {
      const client = new HttpClient(svc.url);
      const takers = accounts.slice(0, 20);
      log('quotes: 100 RFQs, a quotes subscription per taker');
      const rfqs = await inParallel(Array.from({ length: 100 }, (_, i) => i), 10, (i) =>
        createRfq(client, takers[i % takers.length]!, { instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '10000', windowMs: 600_000 }),
      );
      const sentAt = new Map<string, number>();
      const latencies: number[] = [];
      // Wall-clock stamps per quote (comparable with the hop probe's in the service process).
      const wall = () => performance.timeOrigin + performance.now();
      const stamps = new Map<string, { sent: number; response?: number; frame?: number }>();
      const keyOf = new WeakMap<object, string>();
      const send = client.send.bind(client);
      client.send = (req, timeoutMs) =>
        send(req, timeoutMs).then((res) => {
          const s = stamps.get(keyOf.get(req) ?? '');
          if (s) s.response = wall();
          return res;
        });
      const sockets = await connectMany(wsUrl, takers.length, async (ws, i) => {
        await openSession(takers[i]!, ws);
        await request(ws, JSON.stringify({ kind: 'subscribe', topic: 'quotes' }), (f) => f.kind === 'subscribed');
        ws.on('message', (data) => {
          const frame = JSON.parse(data.toString()) as { kind: string; rfqId?: string; makerReceives?: { amount: string } };
          if (frame.kind !== 'quoteUpdate') return;
          const key = `${frame.rfqId}|${frame.makerReceives!.amount}`;
          const at = sentAt.get(key);
          if (at === undefined) return;
          latencies.push(performance.now() - at);
          sentAt.delete(key);
          const s = stamps.get(key);
          if (s) s.frame = wall();
        });
      });
      // A unique price per request (canonical: ends in 1) names the frame it produces.
      const build = (k: number) => {
        const rfq = rfqs[k % rfqs.length]!;
        const maker = makers[Math.floor(k / rfqs.length) % makers.length]!;
        const amount = `3000.${String(k % 100_000).padStart(5, '0')}1`;
        const key = `${rfq.rfqId}|${amount}`;
        sentAt.set(key, performance.now());
        stamps.set(key, { sent: wall() });
        const req = maker.signer.request('POST', '/v1/rfq/quotes', quoteBody(rfq.rfqId, amount));
        keyOf.set(req, key);
        return req;
      };
      log('quotes: warm-up (1 s at 100/s)');
      await openLoop({ client, rate: 100, durationMs: 1000, build, startIndex: 90_000 });
      await sleep(500);
      sentAt.clear();
      stamps.clear();
      latencies.length = 0;
      if (hopProbe) await readHopProbe(svc.pid, hopProbe); // starts the probe afresh
      const cpu = async () => {
        let database = 0;
        for (const pid of await backendPids(db.pool, db.name)) database += processCpuMs(pid) ?? 0;
        return { service: processCpuMs(svc.pid) ?? NaN, database, at: performance.now() };
      };
      const cpu0 = await cpu();
      log(`quotes: ${quoteRate}/s offered for ${durationSecs} s`);
      const rest = await openLoop({ client, rate: quoteRate, durationMs: durationSecs * 1000, build });
      for (let waited = 0; waited < 3000 && latencies.length < rest.ok; waited += 20) await sleep(20);
      const toFrame = { ...roundSummary(summarize(latencies)), missing: rest.ok - latencies.length };
      const cpu1 = await cpu();
      const per = (a: number, b: number) => round((b - a) / Math.max(1, latencies.length), 3);
      const probe = hopProbe ? await readHopProbe(svc.pid, hopProbe) : null;
      const hops = probe ? quoteHops(probe, stamps, { service: per(cpu0.service, cpu1.service), database: per(cpu0.database, cpu1.database), wallMs: round(cpu1.at - cpu0.at) }) : undefined;
      for (const ws of sockets) ws.terminate();
      client.close();
      log(`quotes: bare insert route at ${quoteRate}/s`);
      const bare = await spawnServer({
        name: 'baseline',
        args: ['bench/baseline-server.ts'],
        env: { ...process.env, BENCH_DATABASE_URL: db.url, BENCH_POOL_SIZE: '10', PORT: '0' },
        cwd: repoRoot,
        ready: /listening (http:\/\/\S+)/,
      });
      try {
        const bareClient = new HttpClient(bare.url);
        const dummy = new Signer({ accessKey: 'bench-dummy-key', secret: Buffer.alloc(32, 7).toString('base64') });
        const bareBuild = (i: number) => ({ ...dummy.request('POST', '/v1/rfq/quotes', quoteBody(`rfq-${i % 100}`, '3000')), path: '/insert' });
        await openLoop({ client: bareClient, rate: 100, durationMs: 1000, build: bareBuild });
        const bareInsert = await openLoop({ client: bareClient, rate: quoteRate, durationMs: durationSecs * 1000, build: bareBuild });
        bareClient.close();
        results.quotes = { ...(hops ? { hops } : {}), offeredRate: quoteRate, rest: { ...rest, latency: roundSummary(rest.latency), serviceTime: rest.serviceTime && roundSummary(rest.serviceTime) }, toFrame, bareInsert: { ...bareInsert, latency: roundSummary(bareInsert.latency), serviceTime: bareInsert.serviceTime && roundSummary(bareInsert.serviceTime) } };
      } finally {
        await bare.stop();
      }
    }
  } finally {
    if (hopProbe) await rm(path.dirname(hopProbe), { recursive: true, force: true });
    const code = await own.stop();
    if (code !== 0 && code !== null) results.failures.push(`service exited ${code}: ${service.stderrTail.slice(-5).join(' | ')}`);
  }
}

function report(r: WsResults): string {
  const lines: string[] = [];
  const lat = (s: LatencySummary) => `${s.p50} / ${s.p99} ms`;
  lines.push(`\nWebSocket benchmark (${r.machine.cpus} CPUs, load ${r.machine.loadAverageStart} -> ${r.machine.loadAverageEnd})`);
  lines.push('| figure | service | bare (same run) | ratio p50 / p99 |');
  lines.push('|---|---|---|---|');
  const ratio = (a: LatencySummary, b: LatencySummary) => `${round(a.p50 / b.p50)}x / ${round(a.p99 / b.p99)}x`;
  if (r.prices && r.bare) {
    for (const size of ['small', 'large'] as const) {
      const p = r.prices[size];
      const b = r.bare[size];
      lines.push(`| tick -> last receipt p50 / p99, ${p.clients} sessions (${p.ticks} ticks; conflated ${p.conflated}, on latest ${p.clientsOnLatestTick}/${p.clients}) | ${lat(p.toLastReceipt)} | ${lat(b.toLastReceipt)} | ${ratio(p.toLastReceipt, b.toLastReceipt)} |`);
    }
    lines.push(`| memory per idle session (RSS delta / sessions) | ${r.prices.rssPerSessionKiB} KiB | ${r.bare.rssPerConnectionKiB} KiB | |`);
    lines.push(`| service RSS with ${r.prices.large.clients} sessions | ${round(r.prices.serviceRssKiB / 1024)} MiB | | |`);
  }
  if (r.quotes) {
    const q = r.quotes;
    lines.push(`| quote REST send -> taker quoteUpdate p50 / p99 at ${q.offeredRate}/s (missing ${q.toFrame.missing}) | ${lat(q.toFrame)} | ${lat(q.bareInsert.latency)} (bare insert route, response) | ${ratio(q.toFrame, q.bareInsert.latency)} |`);
    lines.push(`| quote REST response p50 / p99 at ${q.offeredRate}/s (ok ${q.rest.ok}, failed ${q.rest.failed}) | ${lat(q.rest.latency)} | ${lat(q.bareInsert.latency)} | ${ratio(q.rest.latency, q.bareInsert.latency)} |`);
    if (q.hops) {
      const h = q.hops;
      lines.push(`\nWhere the quote -> quoteUpdate time goes (${h.quotes} quotes stamped; p50 / p99 / max ms; mean over the slowest 1%):`);
      for (const [k, v] of Object.entries(h.segments)) lines.push(`  ${k.padEnd(18)} ${v.p50} / ${v.p99} / ${v.max}   tail ${h.tailMeans[k]}`);
      lines.push(`  slowest 1% send -> frame mean ${h.tailMeans.sendToFrame} ms`);
      lines.push(`  dispatcher reads ${h.reads.count} (${h.reads.woken} woken), ${h.reads.duration.p50} / ${h.reads.duration.p99} ms, ${h.reads.rowsMean} rows each; wakes ${h.wakes}; commit hand-overs ${h.handovers}; hole checks ${h.holes.checks} (${h.holes.alive} alive, ${h.holes.totalMs} ms)`);
      lines.push(`  quote batches ${h.batches.count}, ${h.batches.itemsMean} items each, ${h.batches.duration.p50} / ${h.batches.duration.p99} ms; event-loop delay p50 / p99 / max ${h.eventLoopDelay.p50} / ${h.eventLoopDelay.p99} / ${h.eventLoopDelay.max} ms`);
      lines.push(`  CPU per quote: service ${h.cpuPerQuote.service} ms, its PostgreSQL backends ${h.cpuPerQuote.database} ms (step ${h.cpuPerQuote.wallMs} ms wall)`);
    }
  }
  if (r.failures.length > 0) lines.push(`failures: ${r.failures.join('; ')}`);
  return `${lines.join('\n')}\n`;
}

const results: WsResults = {
  startedAt: new Date(started).toISOString(),
  machine: { cpus: os.cpus().length, node: process.version, loadAverageStart: loadAverage() },
  config: { sessions, durationSecs, quoteRate, ticksPerSec: TICKS_PER_SEC, sessionsPerAccount: ACCOUNT_SESSIONS, phases: [...phases] },
  failures: [],
};
try {
  if (phases.has('bare')) await runBare(results);
  if (phases.has('prices') || phases.has('quotes')) await runService(results);
} catch (error) {
  results.failures.push(String((error as Error).stack ?? error));
  log(`FAILED: ${String((error as Error).stack ?? error)}`);
}
results.machine.loadAverageEnd = loadAverage();
const dir = path.join(repoRoot, 'bench', 'results');
await mkdir(dir, { recursive: true });
const file = args.results ? path.resolve(args.results) : path.join(dir, `ws-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(report(results));
process.stdout.write(`full results: ${path.relative(process.cwd(), file)}\n`);
process.exit(results.failures.length > 0 ? 1 : 0);
