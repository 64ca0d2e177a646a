/**
 * Business metrics on `/metrics`: RFQs by instrument and final status, quotes, selections, fills
 * by settlement mode, settlement latency, maker failures (fades and late relays among them), maker
 * response times, and the outbox's lag behind this node's dispatcher. The venue's request weight
 * has its own (venue-budget-metrics.ts).
 *
 * Counted from what the use cases already commit, never from inside them: a poller tails the
 * shared outbox (RFQ transitions and quote frames) and the maker failures in batches after a
 * cursor that starts at the head when the node starts (store/business-events.ts). Every node
 * reads the same rows, so every node reports the whole venue's counts since it started:
 * aggregate nodes with `max`, not `sum`. A row is counted once it is `SETTLE_MS` old: outbox ids
 * are drawn at insert, not at commit, so a younger row may still have an uncommitted id before it.
 * Labels are bounded: instruments of the reference data, the RFQ's final statuses, the settlement
 * modes and the known failure reasons, anything else `other`.
 */
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { makerFailuresAfter, outboxFactsAfter, outboxHead, outboxRowAfter, rfqFacts, type FailureCursor, type OutboxFact } from '../store/business-events.ts';
import { inBackgroundLane } from '../store/work-lane.ts';
import type { ServiceDeps } from '../services/deps.ts';

const POLL_MS = 2000;
const SETTLE_MS = 2000;
const BATCH = 500;
const FINAL_STATUSES = new Set(['SETTLED', 'FAILED', 'CANCELLED']);
const MODES = new Set(['permit2', 'promised', 'xchange', 'perp']);
const FAILURE_REASONS = new Set(['notSettled', 'notDelivered', 'lateRelay', 'notFactoryWrapper', 'perpMakerOrder']);

export interface BusinessMetrics {
  stop(): Promise<void>;
}

/** A failure's reason as a label: the part before a `:` detail, when it is one of the known ones. */
export function failureReasonLabel(reason: string): string {
  const head = reason.split(':', 1)[0]!.trim();
  return FAILURE_REASONS.has(head) ? head : 'other';
}

export async function startBusinessMetrics(deps: ServiceDeps, registry: Registry, logger: Logger, dispatcherCursor: () => number | null): Promise<BusinessMetrics> {
  const rfqsFinal = new Counter({ name: 'rfq_rfqs_final_total', help: 'RFQs that reached a final status, by instrument and status', labelNames: ['instrument', 'status'], registers: [registry] });
  const quotes = new Counter({ name: 'rfq_quotes_total', help: 'Quotes submitted (re-quotes not counted), by instrument', labelNames: ['instrument'], registers: [registry] });
  const selections = new Counter({ name: 'rfq_selections_total', help: 'Quotes selected (RFQs reaching QUOTED), by instrument', labelNames: ['instrument'], registers: [registry] });
  const fills = new Counter({ name: 'rfq_fills_total', help: 'RFQs settled, by instrument and settlement mode', labelNames: ['instrument', 'mode'], registers: [registry] });
  const settlement = new Histogram({
    name: 'rfq_settlement_seconds', help: 'From the selection to the settlement, by settlement mode', labelNames: ['mode'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600], registers: [registry],
  });
  const response = new Histogram({
    name: 'rfq_maker_response_seconds', help: "From an RFQ's creation to each maker's first quote on it",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [registry],
  });
  const failures = new Counter({ name: 'rfq_maker_failures_total', help: 'Maker failures recorded (fades: notSettled, notDelivered; late relays: lateRelay), by reason', labelNames: ['reason'], registers: [registry] });
  const db = deps.db;
  new Gauge({
    name: 'rfq_outbox_lag_rows', help: "Outbox rows written but not yet read by this node's dispatcher (absent without the dispatch worker)", registers: [registry],
    async collect() {
      const cursor = dispatcherCursor();
      if (cursor === null) return;
      this.set(Math.max(0, (await outboxHead(db)).id - cursor));
    },
  });
  new Gauge({
    name: 'rfq_outbox_lag_seconds', help: "Age of the oldest outbox row this node's dispatcher has not read yet (0 when caught up)", registers: [registry],
    async collect() {
      const cursor = dispatcherCursor();
      if (cursor === null) return;
      const oldest = await outboxRowAfter(db, cursor);
      this.set(oldest === null ? 0 : Math.max(0, deps.clock.now() - oldest) / 1000);
    },
  });

  let outboxCursor = (await outboxHead(db)).id;
  let failureCursor: FailureCursor = { createdAt: deps.clock.now(), quoteId: '' };

  const count = async (facts: readonly OutboxFact[]) => {
    const instruments = (await deps.refdata.current()).instruments;
    const instrument = (id: string | null) => (id !== null && instruments.has(id) ? id : 'other');
    const needed = facts.filter((f) => f.rfqId !== null && ((f.kind === 'rfqStatus' && f.status === 'SETTLED') || (f.kind === 'quoteUpdate' && f.version === 1))).map((f) => f.rfqId!);
    const rfqs = await rfqFacts(db, needed);
    for (const f of facts) {
      if (f.kind === 'rfqStatus') {
        if (f.status === 'QUOTED') selections.inc({ instrument: instrument(f.instrumentId) });
        if (f.status !== null && FINAL_STATUSES.has(f.status)) rfqsFinal.inc({ instrument: instrument(f.instrumentId), status: f.status });
        if (f.status === 'SETTLED') {
          const raw = rfqs.get(f.rfqId ?? '')?.settlementMode ?? null;
          const mode = raw !== null && MODES.has(raw) ? raw : 'other';
          fills.inc({ instrument: instrument(f.instrumentId), mode });
          if (f.quotedAt !== null && f.settledAt !== null) settlement.observe({ mode }, Math.max(0, f.settledAt - f.quotedAt) / 1000);
        }
      } else if (f.kind === 'quoteUpdate' && f.version === 1 && f.status === 'SUBMITTED') {
        quotes.inc({ instrument: instrument(f.instrumentId) });
        const rfq = rfqs.get(f.rfqId ?? '');
        if (rfq && f.receivedAt !== null) response.observe(Math.max(0, f.receivedAt - rfq.createdAt) / 1000);
      }
    }
  };

  async function round(): Promise<void> {
    const until = deps.clock.now() - SETTLE_MS;
    for (;;) {
      const batch = await outboxFactsAfter(db, outboxCursor, BATCH);
      const settled = [];
      for (const f of batch) {
        if (f.createdAt > until) break;
        settled.push(f);
      }
      await count(settled);
      if (settled.length > 0) outboxCursor = settled[settled.length - 1]!.id;
      if (settled.length < BATCH) break;
    }
    for (;;) {
      const batch = await makerFailuresAfter(db, failureCursor, until, BATCH);
      for (const f of batch) failures.inc({ reason: failureReasonLabel(f.reason) });
      const last = batch[batch.length - 1];
      if (last) failureCursor = { createdAt: last.createdAt, quoteId: last.quoteId };
      if (batch.length < BATCH) break;
    }
  }

  let running: Promise<void> | null = null;
  const tick = () =>
    (running ??= inBackgroundLane(() => round())
      .catch((error: unknown) => logger.warn({ err: error }, 'counting business metrics failed (retried next round)'))
      .finally(() => {
        running = null;
      }));
  const timer = setInterval(tick, POLL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
