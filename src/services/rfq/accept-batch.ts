/**
 * Spot accepts, group-committed: accepts arriving while a batch is in flight are
 * decided together in one transaction, with one lock call and one write call for the batch
 * (src/store/accept-batch-functions.ts), one protection write, one events append and one commit.
 * Under light load a batch is one accept, so nothing waits for company.
 *
 * Each item is decided as the accept alone decides it (accept-quote.ts `checkAccept`,
 * select-quote.ts `planSelection`), in arrival order; a refusal is that item's answer and the
 * others go on. What a batch cannot decide exactly is handed back to the accept alone, run after
 * the batch commits:
 * - an autoAccept RFQ (its bound lock is released before the exact one is taken, a write that a
 *   refusal by funds would have to undo);
 * - an item whose maker's protection was tripped by an earlier item of the same batch: the trip
 *   counted items before the funds were locked, and one of them may yet be refused for funds;
 * - every item of a batch that deadlocked (rolled back whole, claims included).
 * Two accepts of one RFQ, or two requests with one (access key, timestamp), never share a batch:
 * the later one waits for the next.
 */
import { ServiceError } from '../../domain/errors.ts';
import { inTransaction } from '../../store/outbox.ts';
import { batchClaimOutcome, lockAcceptBatch, writeAcceptBatch, type AcceptBatchWriteItem } from '../../store/accept-batch-functions.ts';
import { insufficientBalance } from '../../store/ledger.ts';
import type { LockedProtection } from '../../store/accept-functions.ts';
import { claimKey } from '../../store/timestamp-claims.ts';
import type { Instrument } from '../../domain/rfq/index.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { assertTimestampClaimed, claimWon, type DeferredClaim } from '../auth/timestamp-claims.ts';
import { pushFrames } from '../frames.ts';
import { SelectionGuard } from '../protection/selection-guard.ts';
import { parsePerpTakerOrder } from '../perp/accept-perp.ts';
import { acceptAlone, checkAccept, type AcceptInput, type AcceptResult } from './accept-quote.ts';
import { resolveInstrument } from './create-rfq.ts';
import { makerBarred, planSelection, protectionWithdrew, type SelectionPlan } from './select-quote.ts';
import type { RfqRow } from './rows.ts';

export interface AcceptRequest {
  taker: { accountId: string; address: string };
  rfqId: string;
  input: AcceptInput;
  claim: DeferredClaim | undefined;
  /** When the request arrived: the auction must have been open then, and the RFQ is QUOTED as of then. */
  arrivedAt: number;
}

/** An item's answer once its batch committed: its result, its refusal, or a run of its own. */
type Verdict = { kind: 'done'; result: AcceptResult; settlementDeadline: number | null } | { kind: 'refused'; error: unknown } | { kind: 'alone' };

interface Pending {
  request: AcceptRequest;
  resolve: (result: AcceptResult) => void;
  reject: (error: unknown) => void;
}

const DEADLOCK = '40P01';

const batchers = new WeakMap<ServiceDeps, AcceptBatcher>();

/** The batcher of this service (one per node's dependencies). */
export function acceptBatcher(deps: ServiceDeps): AcceptBatcher {
  let batcher = batchers.get(deps);
  if (!batcher) batchers.set(deps, (batcher = new AcceptBatcher(deps)));
  return batcher;
}

export class AcceptBatcher {
  readonly #deps: ServiceDeps;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  #pending: Pending[] = [];
  #inFlight = 0;
  /** Batches sent and the accepts in them, since start (the bench's accepts per batch; tests). */
  readonly sent = { batches: 0, accepts: 0 };

  constructor(deps: ServiceDeps, options: { maxBatch?: number; maxInFlight?: number } = {}) {
    this.#deps = deps;
    this.#maxBatch = options.maxBatch ?? 32;
    // One batch at a time: the next gathers everything that arrived meanwhile (measured: two in
    // flight made smaller batches and no more accepts per second, docs/decisions/0048-performance-measures-left-out.md).
    this.#maxInFlight = options.maxInFlight ?? 1;
  }

  accept(request: AcceptRequest): Promise<AcceptResult> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ request, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#maxInFlight && this.#pending.length > 0) {
      const batch = this.#take();
      this.#inFlight += 1;
      this.sent.batches += 1;
      this.sent.accepts += batch.length;
      void this.#send(batch).finally(() => {
        this.#inFlight -= 1;
        this.#pump();
      });
    }
  }

  /** The next batch in arrival order, leaving for a later one an accept of an RFQ or a claim already in it. */
  #take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const rfqs = new Set<string>();
    const claims = new Set<string>();
    for (const p of this.#pending) {
      const { rfqId, claim } = p.request;
      const key = claim && !claim.timestampClaimed ? claimKey(claim.accessKey, claim.signedAt) : null;
      if (batch.length >= this.#maxBatch || rfqs.has(rfqId) || (key !== null && claims.has(key))) {
        rest.push(p);
        continue;
      }
      batch.push(p);
      rfqs.add(rfqId);
      if (key !== null) claims.add(key);
    }
    this.#pending = rest;
    return batch;
  }

  async #send(batch: Pending[]): Promise<void> {
    let verdicts: Verdict[];
    try {
      verdicts = await decideBatch(this.#deps, batch.map((p) => p.request));
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK) {
        for (const p of batch) p.reject(error);
        return;
      }
      // Rolled back whole, claims included: each accept runs alone, as it would without batching.
      verdicts = batch.map(() => ({ kind: 'alone' }));
    }
    const alone: typeof batch = [];
    batch.forEach((p, i) => {
      const verdict = verdicts[i]!;
      if (verdict.kind === 'done') {
        if (verdict.settlementDeadline !== null) this.#deps.hooks.quoteSelected(verdict.result.rfqId, verdict.settlementDeadline);
        p.resolve(verdict.result);
      } else if (verdict.kind === 'refused') {
        p.reject(verdict.error);
      } else {
        alone.push(p);
      }
    });
    // One after another, in arrival order, and the next batch waits for them: an accept handed
    // back keeps its place (two handed back on one maker's last headroom are judged in the order
    // they came, not in the order their transactions happen to lock).
    for (const p of alone) {
      const { taker, rfqId, input, claim, arrivedAt } = p.request;
      await acceptAlone(this.#deps, taker, rfqId, input, claim, arrivedAt).then(p.resolve, p.reject);
    }
  }
}

interface Planned {
  index: number;
  rfq: RfqRow;
  instrument: Instrument;
  plan: SelectionPlan;
}

/** One transaction for the batch; answers each item's verdict, in order. Throws (nothing committed) on a database failure. */
async function decideBatch(deps: ServiceDeps, requests: readonly AcceptRequest[]): Promise<Verdict[]> {
  const { verdicts, claimed } = await inTransaction(deps.db, async (tx) => {
    const now = deps.clock.now();
    const pending = requests.map((r) => (r.claim && !r.claim.timestampClaimed ? r.claim : null));
    const locked = await lockAcceptBatch(
      tx,
      requests.map((r, i) => ({ claim: pending[i]!, rfqId: r.rfqId, accountId: r.taker.accountId, quoteId: r.input.quoteId })),
      now,
    );
    // The protection as each item is decided (it counts items the funds may yet refuse: see above).
    const tentative = SelectionGuard.fromLocked(locked.protections, locked.barred);
    const verdicts: Array<Verdict | null> = [];
    const planned: Planned[] = [];
    for (const [index, request] of requests.entries()) {
      try {
        const claim = pending[index];
        if (claim) assertTimestampClaimed(claimWon(batchClaimOutcome(locked, claim)), deps.clock.now());
        const item = await decideItem(tx, deps, request, locked, tentative);
        if (item === 'alone') verdicts.push({ kind: 'alone' });
        else if ('replay' in item) verdicts.push({ kind: 'done', result: item.replay, settlementDeadline: null });
        else {
          verdicts.push(null);
          planned.push({ index, ...item });
        }
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        verdicts.push({ kind: 'refused', error });
      }
    }
    if (planned.length > 0) await writePlanned(tx, deps, planned, locked.protections, verdicts, now);
    return { verdicts, claimed: pending.map((claim) => claim !== null && batchClaimOutcome(locked, claim) === 'claimed') };
  });
  // Committed: the claims the batch won are durable, whatever their items' answers (a refused
  // accept is not claimed again; one handed back does not claim twice).
  requests.forEach((r, i) => {
    if (claimed[i]) r.claim!.timestampClaimed = true;
  });
  return verdicts.map((v) => v!);
}

async function decideItem(
  tx: Tx,
  deps: ServiceDeps,
  request: AcceptRequest,
  locked: Awaited<ReturnType<typeof lockAcceptBatch>>,
  guard: SelectionGuard,
): Promise<'alone' | { replay: AcceptResult } | Omit<Planned, 'index'>> {
  const rfq = locked.rfqs.get(request.rfqId);
  // The lock call locks only an RFQ of the item's taker.
  if (!rfq) throw new ServiceError('NOT_FOUND', 'no such RFQ');
  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  // A perp accept must carry its order (those that do run alone): refused as the accept alone refuses it.
  if (instrument.type === 'PERP') parsePerpTakerOrder(request.input.perpTakerOrder);
  const checked = checkAccept(rfq, locked.quotes, request.input, instrument, request.arrivedAt, deps.clock.now());
  const winner = checked.quote;
  if (checked.replay) return { replay: { rfqId: rfq.id, quoteId: winner.id, status: rfq.status, replayed: true } };
  if (rfq.auto_accept) return 'alone';
  if (guard.barred(winner.maker_account_id)) throw makerBarred();
  if (!guard.maySelect(winner.maker_account_id, rfq.instrument_id)) {
    if (guard.trippedBefore(winner.maker_account_id, rfq.instrument_id)) throw protectionWithdrew();
    return 'alone';
  }
  const plan = await planSelection(tx, deps, { rfq, winner, quotes: locked.quotes, instrument, now: request.arrivedAt });
  guard.count(winner, instrument);
  return { rfq, instrument, plan };
}

/**
 * The batch's one write, then the protection's counts of the items written (in arrival order,
 * from the rows as locked), then their frames in arrival order (each taker's balances once).
 */
async function writePlanned(tx: Tx, deps: ServiceDeps, planned: Planned[], protections: LockedProtection[], verdicts: Array<Verdict | null>, now: number): Promise<void> {
  const items: AcceptBatchWriteItem[] = planned.map(({ rfq, plan }) => ({
    lock: plan.lock,
    rfq: { id: rfq.id, from: rfq.status, to: plan.decision.status, selectedQuoteId: plan.quotes[0].quote.id, quotedAt: plan.lock.at },
    quotes: plan.quotes.map((c) => ({ id: c.quote.id, from: c.quote.status, to: c.decision.status, settlementDeadlineSecs: c.settlementDeadlineSecs, ...(c.fields ? { fields: c.fields } : {}) })),
  }));
  const written = await writeAcceptBatch(tx, items, now);
  const guard = SelectionGuard.fromLocked(protections);
  const done = planned.filter((_, i) => written.locked.has(i));
  for (const [i, p] of planned.entries()) {
    if (!written.locked.has(i)) verdicts[p.index] = { kind: 'refused', error: insufficientBalance(p.plan.lock.token) };
  }
  for (const p of done) {
    const rfq = written.rfqs.get(p.rfq.id)!;
    guard.count(written.quotes.get(p.plan.quotes[0].quote.id)!, p.instrument);
    verdicts[p.index] = { kind: 'done', result: { rfqId: rfq.id, quoteId: p.plan.quotes[0].quote.id, status: rfq.status, replayed: false }, settlementDeadline: rfq.settlement_deadline_secs };
  }
  if (done.length === 0) return;
  await guard.flush(tx, now);
  const instruments = new Map(done.map((p) => [p.rfq.id, p.instrument]));
  await pushFrames(
    tx,
    deps,
    done.flatMap((p) => [...p.plan.decision.frames, ...p.plan.quotes.flatMap((c) => c.decision.frames)]),
    { rfqs: [...written.rfqs.values()], quotes: [...written.quotes.values()], instrumentOf: (id) => instruments.get(id)!, balances: written.balances },
    now,
  );
}
