/**
 * Auction close lateness. autoAccept BUY RFQs are created with windows chosen so their
 * `auctionEndsAt` fall on a schedule (evenly at `n / spanMs`), each gets `quotesPerRfq`
 * conforming quotes, then nothing else runs while they close.
 *
 * Two lateness figures per RFQ, both against the RFQ's own `auctionEndsAt`:
 *  - recorded: the service's selection timestamp, `quoted_at` (or `updated_at` for a FAILED close),
 *    read back from the bench database;
 *  - observed: when the close became visible, i.e. committed. For the close phases only, the
 *    benchmark adds to ITS database an AFTER UPDATE trigger on rfqs that NOTIFYs the RFQ id when
 *    the status leaves PENDING; PostgreSQL delivers a NOTIFY at commit, and the benchmark stamps
 *    its arrival. Cost to the service: one pg_notify per close, in a transaction that already
 *    notifies (the outbox trigger), so no new commit-time serialisation.
 * The two differ because the service stamps `quoted_at` when the close starts, before it waits
 * for a pool connection and before its transaction commits.
 */
import pg from 'pg';
import { errorKey, inParallel, type HttpClient } from '../lib/http-load.ts';
import { startSampling, type Resources, type SamplerDeps } from '../lib/resources.ts';
import { summarize, type LatencySummary } from '../lib/stats.ts';
import { createRfq, INSTRUMENT, quoteBody, type Actor, type CreatedRfq } from '../lib/venue.ts';

export interface CloseResult {
  label: string;
  count: number;
  spanMs: number;
  quotesPerRfq: number;
  outcomes: Record<string, number>;
  recorded: LatencySummary;
  observed: LatencySummary;
  /** observed - recorded: the close transaction's time from its timestamp to commit (incl. pool wait). */
  commitLag: LatencySummary;
  recordedBuckets: Record<string, number>;
  observedBuckets: Record<string, number>;
  notSeen: number;
  setupOverranMs: number;
  setupErrors: Record<string, number>;
  resources: Resources;
}

export interface CloseOptions {
  label: string;
  client: HttpClient;
  dbUrl: string;
  makers: Actor[];
  takers: Actor[];
  count: number;
  spanMs: number;
  quotesPerRfq: number;
  /** Least lead from the end of calibration to the first deadline, ms (more when the set-up is slow). */
  leadMs: number;
  sampling: SamplerDeps;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Adds (on the bench database only) the trigger that NOTIFYs each RFQ leaving PENDING. */
export async function installCloseObserver(pool: pg.Pool): Promise<void> {
  await pool.query(`
    create or replace function bench_rfq_closed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('bench_rfq_closed', new.id);
      return null;
    end $$;
    drop trigger if exists bench_rfq_closed on rfqs;
    create trigger bench_rfq_closed after update of status on rfqs for each row
      when (old.status = 'PENDING' and new.status <> 'PENDING') execute function bench_rfq_closed();
  `);
}

export async function removeCloseObserver(pool: pg.Pool): Promise<void> {
  await pool.query('drop trigger if exists bench_rfq_closed on rfqs');
}

/** Counts per lateness bucket (ms, upper bounds). */
export function buckets(values: number[]): Record<string, number> {
  const bounds = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2000, 5000];
  const out: Record<string, number> = {};
  for (const b of bounds) out[`<=${b}`] = 0;
  out['>5000'] = 0;
  for (const v of values) {
    const b = bounds.find((x) => v <= x);
    const key = b === undefined ? '>5000' : `<=${b}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

export async function runClose(options: CloseOptions): Promise<CloseResult> {
  const { client, makers, takers, count, spanMs, quotesPerRfq, log, label } = options;
  await installCloseObserver(options.sampling.pool);
  // Observer: a NOTIFY per closed RFQ, delivered at commit.
  const pending = new Set<string>();
  const early = new Map<string, number>();
  const seenAt = new Map<string, number>();
  const listener = new pg.Client({ connectionString: options.dbUrl });
  await listener.connect();
  listener.on('notification', (message) => {
    const id = message.payload ?? '';
    const at = Date.now();
    if (pending.delete(id)) seenAt.set(id, at);
    else early.set(id, at); // closed before its creation response reached us (setup overran)
  });
  await listener.query('LISTEN bench_rfq_closed');

  // Each worker creates an RFQ and quotes it at once, in deadline order, so the earliest
  // deadlines get their quotes first.
  const setupErrors: Record<string, number> = {};
  const setUp = async (end: number, i: number, autoAccept: boolean): Promise<CreatedRfq> => {
    const rfq = await createRfq(client, takers[i % takers.length]!, {
      instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept, windowMs: Math.max(1000, end - Date.now()),
    });
    for (let j = 0; j < quotesPerRfq; j++) {
      const maker = makers[(i + j) % makers.length]!;
      const res = await client.send(maker.signer.request('POST', '/v1/rfq/quotes', quoteBody(rfq.rfqId, (3000 + j).toFixed(2))));
      if (res.status !== 202) {
        const key = errorKey(res.status, res.text);
        setupErrors[key] = (setupErrors[key] ?? 0) + 1;
      }
    }
    return rfq;
  };
  // The set-up must finish before the first deadline, or the closes run under the set-up's own
  // load (and early RFQs close before their quotes arrive). Its speed depends on how busy the
  // machine is: time a sample of the same work (long-window, taker-driven RFQs that stay open
  // and out of the figures), then lead by twice the estimate.
  const sample = 20;
  const calibrationStart = Date.now();
  await inParallel(Array.from({ length: sample }, (_, i) => Date.now() + 600_000 + i), 10, (end, i) => setUp(end, i, false));
  const perRfqMs = (Date.now() - calibrationStart) / sample;
  const leadMs = Math.max(options.leadMs, Math.ceil(2000 + 2 * perRfqMs * count));
  const t0 = Date.now() + leadMs;
  const ends = Array.from({ length: count }, (_, i) => t0 + Math.floor((i * spanMs) / count));
  log(`${label}: creating ${count} autoAccept RFQs ending from +${leadMs} ms (set-up ${perRfqMs.toFixed(1)} ms per RFQ) over ${spanMs} ms, ${quotesPerRfq} quote(s) each`);
  const rfqs: CreatedRfq[] = await inParallel(ends, 10, (end, i) => setUp(end, i, true));
  for (const rfq of rfqs) {
    const at = early.get(rfq.rfqId);
    if (at === undefined) pending.add(rfq.rfqId);
    else seenAt.set(rfq.rfqId, at);
  }
  const firstEnd = Math.min(...rfqs.map((r) => r.auctionEndsAt));
  const lastEnd = Math.max(...rfqs.map((r) => r.auctionEndsAt));
  const setupOverranMs = Math.max(0, Date.now() - firstEnd);
  if (setupOverranMs > 0) log(`${label}: WARNING setup overran the first deadline by ${setupOverranMs} ms (raise the lead)`);

  const stop = await startSampling(options.sampling);
  const deadline = lastEnd + 30_000;
  while (pending.size > 0 && Date.now() < deadline) await sleep(50);
  await sleep(100);
  const resources = await stop(count);
  await listener.end();
  await removeCloseObserver(options.sampling.pool);

  const { rows } = await options.sampling.pool.query<{ id: string; status: string; auction_ends_at: string; quoted_at: string | null; updated_at: string }>(
    'select id, status, auction_ends_at, quoted_at, updated_at from rfqs where id = any($1::text[])',
    [rfqs.map((r) => r.rfqId)],
  );
  const outcomes: Record<string, number> = {};
  const recorded: number[] = [];
  const observed: number[] = [];
  const commitLag: number[] = [];
  for (const row of rows) {
    outcomes[row.status] = (outcomes[row.status] ?? 0) + 1;
    if (row.status === 'PENDING') continue;
    const endsAt = Number(row.auction_ends_at);
    const selectedAt = Number(row.quoted_at ?? row.updated_at);
    recorded.push(selectedAt - endsAt);
    const seen = seenAt.get(row.id);
    if (seen !== undefined) {
      observed.push(seen - endsAt);
      commitLag.push(seen - selectedAt);
    }
  }
  return {
    label,
    count,
    spanMs,
    quotesPerRfq,
    outcomes,
    recorded: summarize(recorded),
    observed: summarize(observed),
    commitLag: summarize(commitLag),
    recordedBuckets: buckets(recorded),
    observedBuckets: buckets(observed),
    notSeen: pending.size,
    setupOverranMs,
    setupErrors,
    resources,
  };
}
