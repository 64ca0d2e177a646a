/**
 * Load generation over real HTTP: a keep-alive client, per-key HMAC signing at send time, an
 * open-loop generator at a fixed offered rate (latency measured from the SCHEDULED send time, so
 * a slow server cannot hide its queueing: no coordinated omission) and a closed-loop generator
 * (autocannon, fixed number of connections, each sends its next request when the previous ends).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { signRequest, TimestampSource, type Credentials } from '../../src/client/http.ts';
import { summarize, type LatencySummary } from './stats.ts';
import { recordClientSample } from './timeline.ts';

export interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Signs for one access key; timestamps strictly increase per key as the service requires. */
export class Signer {
  readonly credentials: Credentials;
  readonly #timestamps = new TimestampSource();

  constructor(credentials: Credentials) {
    this.credentials = credentials;
  }

  request(method: string, path: string, body: unknown, query = ''): Req {
    const text = body === undefined ? '' : JSON.stringify(body);
    const signed = signRequest(this.credentials, this.#timestamps.next(), method, path, query, text);
    const headers: Record<string, string> = { ...signed };
    if (text !== '') headers['content-type'] = 'application/json';
    return { method, path: query ? `${path}?${query}` : path, headers, body: text };
  }
}

export interface Response {
  status: number;
  text: string;
}

export class HttpClient {
  readonly baseUrl: URL;
  readonly agent: http.Agent;

  constructor(baseUrl: string, maxSockets = 256) {
    this.baseUrl = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  send(req: Req, timeoutMs = 30_000): Promise<Response> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...req.headers };
      if (req.body !== '') headers['content-length'] = Buffer.byteLength(req.body);
      const r = http.request(
        { host: this.baseUrl.hostname, port: this.baseUrl.port, method: req.method, path: req.path, headers, agent: this.agent, timeout: timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      r.on('timeout', () => r.destroy(new Error('request timeout')));
      r.on('error', reject);
      if (req.body !== '') r.write(req.body);
      r.end();
    });
  }

  /** Sends and parses JSON; throws on a non-2xx status with the error code. */
  async json<T>(req: Req): Promise<T> {
    const res = await this.send(req);
    if (res.status < 200 || res.status >= 300) throw new Error(`${req.method} ${req.path}: ${res.status} ${res.text.slice(0, 300)}`);
    return (res.text ? JSON.parse(res.text) : undefined) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** "409 QUOTE_NOT_OPEN" style key for a failed response. */
export function errorKey(status: number, text: string): string {
  try {
    const code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
    return `${status} ${code ?? '?'}`;
  } catch {
    return `${status}`;
  }
}

export interface LoadResult {
  mode: 'open' | 'closed';
  offeredRate: number | null;
  connections: number | null;
  durationMs: number;
  sent: number;
  ok: number;
  failed: number;
  /** ok responses per second over the run (open loop: first scheduled send to last response). */
  throughput: number;
  /** Open loop: from scheduled send time; closed loop: autocannon's per-request latency (2xx only). */
  latency: LatencySummary;
  /** Open loop only: from the actual send (what a naive client would report). */
  serviceTime: LatencySummary | null;
  errors: Record<string, number>;
  maxInFlight: number | null;
}

export interface OpenLoopOptions {
  client: HttpClient;
  rate: number;
  durationMs: number;
  build: (i: number) => Req;
  /** Index of the first request (so a sequence of runs keeps cycling through the pairs). */
  startIndex?: number;
}

export async function openLoop(options: OpenLoopOptions): Promise<LoadResult> {
  const { client, rate, durationMs, build } = options;
  const interval = 1000 / rate;
  const total = Math.round((rate * durationMs) / 1000);
  const latencies: number[] = [];
  const serviceTimes: number[] = [];
  const errors: Record<string, number> = {};
  let ok = 0;
  let failed = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let sent = 0;
  let lastDone = 0;
  const start = performance.now() + 5;
  const pending: Array<Promise<void>> = [];
  const fire = (i: number, scheduled: number) => {
    const req = build((options.startIndex ?? 0) + i);
    const sentAt = performance.now();
    inFlight += 1;
    if (inFlight > maxInFlight) maxInFlight = inFlight;
    sent += 1;
    pending.push(
      client.send(req).then(
        (res) => {
          const now = performance.now();
          inFlight -= 1;
          lastDone = now;
          if (res.status >= 200 && res.status < 300) {
            ok += 1;
            latencies.push(now - scheduled);
            serviceTimes.push(now - sentAt);
            recordClientSample(scheduled, now - scheduled, rate);
          } else {
            failed += 1;
            const key = errorKey(res.status, res.text);
            errors[key] = (errors[key] ?? 0) + 1;
          }
        },
        (error: unknown) => {
          inFlight -= 1;
          failed += 1;
          lastDone = performance.now();
          const key = `network ${(error as Error).message}`;
          errors[key] = (errors[key] ?? 0) + 1;
        },
      ),
    );
  };
  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * interval <= now) {
        fire(next, start + next * interval);
        next += 1;
      }
      if (next >= total) resolve();
      else setTimeout(tick, Math.max(0, Math.min(1, start + next * interval - performance.now())));
    };
    setTimeout(tick, 5);
  });
  await Promise.all(pending);
  const elapsed = Math.max(lastDone - start, durationMs);
  return {
    mode: 'open',
    offeredRate: rate,
    connections: null,
    durationMs: Math.round(elapsed),
    sent,
    ok,
    failed,
    throughput: (ok * 1000) / elapsed,
    latency: summarize(latencies),
    serviceTime: summarize(serviceTimes),
    errors,
    maxInFlight,
  };
}

export interface ClosedLoopOptions {
  url: string;
  connections: number;
  /** Seconds; or `amount` requests in total. */
  durationSecs?: number;
  amount?: number;
  build: (i: number) => Req;
  startIndex?: number;
}

/** Closed loop through autocannon; each request is built (and signed) just before it is sent. */
export async function closedLoop(options: ClosedLoopOptions): Promise<LoadResult & { nextIndex: number }> {
  let counter = options.startIndex ?? 0;
  const errors: Record<string, number> = {};
  const first = options.build(counter);
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationSecs ?? 10 }),
    timeout: 30,
    requests: [
      {
        method: first.method,
        path: first.path,
        setupRequest: () => {
          const req = options.build(counter);
          counter += 1;
          return { method: req.method, path: req.path, headers: req.headers, body: req.body };
        },
        onResponse: (status, body) => {
          if (status < 200 || status >= 300) {
            const key = errorKey(status, body);
            errors[key] = (errors[key] ?? 0) + 1;
          }
        },
      },
    ],
  });
  const ok = result['2xx'];
  const failed = result.non2xx + result.errors;
  if (result.errors > 0) errors['network'] = (errors['network'] ?? 0) + result.errors;
  const durationMs = result.finish.getTime() - result.start.getTime();
  return {
    mode: 'closed',
    offeredRate: null,
    connections: options.connections,
    durationMs,
    sent: ok + failed,
    ok,
    failed,
    throughput: (ok * 1000) / durationMs,
    latency: {
      count: ok,
      mean: result.latency.average,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    serviceTime: null,
    errors,
    maxInFlight: null,
    nextIndex: counter,
  };
}

/** Runs `items` through `fn` with at most `concurrency` at once, recording each one's latency. */
export async function timedPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<{ latencies: number[]; errors: Record<string, number>; elapsedMs: number }> {
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  let index = 0;
  const begin = performance.now();
  const worker = async () => {
    while (index < items.length) {
      const item = items[index++]!;
      const t0 = performance.now();
      try {
        await fn(item);
        latencies.push(performance.now() - t0);
      } catch (error) {
        const key = (error as Error).message.slice(0, 120);
        errors[key] = (errors[key] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return { latencies, errors, elapsedMs: performance.now() - begin };
}

/** Runs setup calls with bounded concurrency (no timing). */
export async function inParallel<T, R>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let index = 0;
  const worker = async () => {
    while (index < items.length) {
      const i = index++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
