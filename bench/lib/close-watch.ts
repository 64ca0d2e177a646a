/**
 * When auctions are first seen closed, watched from a thread of its own. The benchmark's main loop
 * also drives the open-loop quote load: under it, a poll there runs (and its reply is read) only
 * when that loop gets to it, which measured the benchmark's own backlog as close lateness (seconds
 * on a loaded machine while the service's close stamps were on time). Here the poll every
 * `pollMs` and its reading of the wall clock have an idle loop to themselves.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';

export interface CloseSeen {
  /** Per RFQ closed: ms from its auctionEndsAt to the poll that first saw it no longer PENDING. */
  latencies: number[];
  /** The same RFQs by the close's own stamp (updated_at, taken when its transaction began). */
  stamped: number[];
  /** Still PENDING `timeoutMs` after the last end. */
  notClosed: number;
}

interface WatchData {
  url: string;
  pollMs: number;
  timeoutMs: number;
}

export interface CloseWatch {
  /** Watches this RFQ from now on (post each as soon as it is created: this loop may answer late). */
  add(rfqId: string, auctionEndsAt: number): void;
  /** No more RFQs: resolves once each is closed or timed out. */
  finish(): Promise<CloseSeen>;
}

type ToWatch = { add: [string, number] } | { finish: true };

/**
 * Starts the watching thread on the database at `url` and resolves once it is connected: a thread
 * takes seconds to load on a loaded machine, which must not pass before the first poll.
 */
export function startCloseWatch(url: string, pollMs: number, timeoutMs: number): Promise<CloseWatch> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { url, pollMs, timeoutMs } satisfies WatchData, name: 'close-watch' });
  let answer: { resolve: (seen: CloseSeen) => void; reject: (error: Error) => void } | null = null;
  const answered = new Promise<CloseSeen>((resolve, reject) => (answer = { resolve, reject }));
  answered.catch(() => undefined); // observed by finish()
  return new Promise((resolveReady, rejectReady) => {
    worker.on('message', (message: 'ready' | CloseSeen) => {
      if (message !== 'ready') return answer!.resolve(message);
      resolveReady({
        add: (rfqId, auctionEndsAt) => worker.postMessage({ add: [rfqId, auctionEndsAt] } satisfies ToWatch),
        finish: () => {
          worker.postMessage({ finish: true } satisfies ToWatch);
          return answered;
        },
      });
    });
    const failed = (error: Error) => {
      rejectReady(error);
      answer!.reject(error);
    };
    worker.once('error', failed);
    worker.once('exit', (code) => failed(new Error(`close watch exited (code ${code}) without an answer`)));
  });
}

if (!isMainThread && (workerData as { url?: unknown } | null)?.url) {
  const { url, pollMs, timeoutMs } = workerData as WatchData;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const endsAt = new Map<string, number>();
  let finished = false;
  parentPort!.on('message', (message: ToWatch) => {
    if ('add' in message) endsAt.set(...message.add);
    else finished = true;
  });
  parentPort!.postMessage('ready');
  const latencies: number[] = [];
  const stamped: number[] = [];
  let lastEnd = 0;
  while (!finished || (endsAt.size > 0 && Date.now() < lastEnd + timeoutMs)) {
    if (endsAt.size > 0) {
      lastEnd = Math.max(lastEnd, ...endsAt.values());
      const { rows } = await client.query<{ id: string; updated_at: string }>("select id, updated_at from rfqs where id = any($1::text[]) and status <> 'PENDING'", [[...endsAt.keys()]]);
      const seenAt = Date.now();
      for (const { id, updated_at: updatedAt } of rows) {
        latencies.push(seenAt - endsAt.get(id)!);
        stamped.push(Number(updatedAt) - endsAt.get(id)!);
        endsAt.delete(id);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  await client.end();
  parentPort!.postMessage({ latencies, stamped, notClosed: endsAt.size } satisfies CloseSeen);
  parentPort!.close();
}
