/**
 * The perp executor (DESIGN.md 9.3): drives each accepted perp order through the execution state
 * machine (domain/perp/execution.ts). Exactly once across nodes: a node takes a lease on the
 * execution row (FOR UPDATE SKIP LOCKED, then `lease_owner`/`lease_until` committed), calls the
 * venue with no row lock held, and commits each transition in one transaction that checks it
 * still holds the lease and that the phase is the one it read. The taker's order is sent only by
 * the node that committed `takerSending` in the same run; any node finding `takerSending` with no
 * reply (a crash, a lost lease) resolves the order by its cloid and never sends it again.
 */
import { inTransaction } from '../../store/outbox.ts';
import { lockForPerpCommit, writePerpTransition } from '../../store/perp-commit-functions.ts';
import { acquirePerpExecution, type ChecksRead } from '../../store/perp-lease-function.ts';
import { isPermanentWriteRefusal, sqlState } from '../../store/write-refusal.ts';
import { SelectionGuard } from '../protection/selection-guard.ts';
import { StagedWrites } from './staged-writes.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from '../rfq/create-rfq.ts';
import { quoteTerms, rfqTerms, sweepTerms } from '../rfq/rows.ts';
import { rankedQuote } from '../rfq/accept-sweep.ts';
import { perpSweepTakerTerms, rankSweepBackups } from '../../domain/perp/sweep.ts';
import {
  afterChecks,
  afterCleanup,
  afterLostTakerSend,
  afterMakerOrder,
  afterTakerOrder,
  afterUnwritable,
  isTerminalExecution,
  type CheckResult,
  type ExecutionState,
  type MakerOrderResult,
  type SweepLegState,
  type TakerFill,
  type TakerOrderResult,
  type Transition,
} from '../../domain/perp/execution.ts';
import { cancelSucceeded, isBuilderFeeRefusal, isDuplicateNonce, isMakerFault, isUnknownOid, isVenueFill, lookedUpOrder, nonceExpired, orderOutcome } from '../../domain/perp/order-outcome.ts';
import { canonicalVenueDecimal, FILL_CLOCK_SLACK_MS, summariseFills } from '../../domain/perp/fills.ts';
import { rankCascade } from '../../domain/rfq/perp-cascade.ts';
import { checkTakerOrder } from '../../domain/perp/taker-order.ts';
import { printable } from '../../domain/text/control-characters.ts';
import { recoverSigner, recoverSignerOfText, venueCall, type CheckReadsAhead, type SignerRecovery, type VenueCall } from './check-reads.ts';
import { isAgentOf, isAuthorisedSigner } from '../../domain/perp/authorised-signer.ts';
import { applyEffect, syncSweepFills, type EffectContext } from './apply-effects.ts';
import type { PerpExecutionSettings } from './execution-venue.ts';
import {
  accountAddress,
  cloidOfSigned,
  executionPhase,
  executionState,
  takerOrderOf,
  callJson,
  type ExecutionRow,
} from './execution-rows.ts';
import { callsOfExecution, makerVenueActions, recordCall, recordMakerOrderSending, venueActionsOf, type CallRecord, type MakerVenueActions } from '../../store/perp-execution-calls.ts';
import { duePerpExecutionIds, makerAccountOfQuote, releasePerpExecutionLease, takerAccountOfRfq } from '../../store/perp-execution-rows.ts';

type Address = `0x${string}`;

/**
 * What one run of an execution reads once. None of it changes while the run holds the execution:
 * account addresses never change, and a quote's maker and signed venue actions are read only once
 * it is the current quote (SELECTED, so no longer re-priceable).
 */
interface RunMemo {
  addresses: Map<string, Address>;
  quoteMakers: Map<string, string>;
  actions: Map<string, MakerVenueActions | null>;
  /** This run committed the move into `makerSending` for the current quote: nothing was sent for it before. */
  enteredMakerSending: boolean;
  /** The quote whose "maker order sending" record this run committed with that move (the checks'). */
  sendingRecorded: string | null;
  /** What the checks read, taken with the lease (`acquire`) when the execution was in `checking`. */
  checksRead: ChecksRead | null;
  /**
   * Quotes whose maker order this run's look-up after the taker's order found ended at the venue
   * (filled, or cancelled by it): the clean-up has nothing to cancel for them. Kept in the run only:
   * a run that never saw the look-up sends the cancel, which the venue then answers as done.
   */
  makerOrdersEnded: Set<string>;
}

const newMemo = (checksRead: ChecksRead | null): RunMemo => ({ addresses: new Map(), quoteMakers: new Map(), actions: new Map(), enteredMakerSending: false, sendingRecorded: null, checksRead, makerOrdersEnded: new Set() });

async function addressOf(x: PerpExecutor, memo: RunMemo, accountId: string): Promise<Address> {
  let address = memo.addresses.get(accountId);
  if (address === undefined) {
    address = await accountAddress(x.deps.db, accountId);
    memo.addresses.set(accountId, address);
  }
  return address;
}

async function actionsOf(x: PerpExecutor, memo: RunMemo, quoteId: string): Promise<MakerVenueActions | null> {
  if (!memo.actions.has(quoteId)) memo.actions.set(quoteId, await makerVenueActions(x.deps.db, quoteId));
  return memo.actions.get(quoteId)!;
}

async function makerAddressOf(x: PerpExecutor, memo: RunMemo, quoteId: string): Promise<Address> {
  let accountId = memo.quoteMakers.get(quoteId);
  if (accountId === undefined) {
    accountId = await makerAccountOfQuote(x.deps.db, quoteId);
    memo.quoteMakers.set(quoteId, accountId);
  }
  return addressOf(x, memo, accountId);
}

export interface PerpExecutor extends PerpExecutionSettings {
  deps: ServiceDeps;
  /** The checks' reads this node started when the accept arrived (check-reads.ts); absent: read here. */
  readsAhead?: CheckReadsAhead;
  /** Where the taker order's signer is recovered (check-reads.ts); absent: on this thread. */
  recover?: SignerRecovery;
}

class LeaseLost extends Error {}

const CANCEL_ATTEMPTS = 3;

/** Executions due now that no node holds. */
export async function duePerpExecutions(deps: ServiceDeps, limit: number): Promise<string[]> {
  return duePerpExecutionIds(deps.db, deps.clock.now(), limit);
}

/** The lease, and what the checks read when the execution is in `checking` (perp-lease-function.ts). */
function acquire(x: PerpExecutor, id: string) {
  const now = x.deps.clock.now();
  return acquirePerpExecution(x.deps.db, { id, owner: x.nodeId, now, until: now + x.leaseMs });
}

async function release(x: PerpExecutor, id: string): Promise<void> {
  await releasePerpExecutionLease(x.deps.db, id, x.nodeId);
}

interface Commit {
  transition: Transition;
  calls?: CallRecord[];
  /** Extra columns written with the new state. */
  fields?: { taker_sent_at?: number; taker_reply_at?: number; signer?: string; nonce?: number; cloid?: string | null; next_at?: number };
  /** Records written only with `transition` itself, not when the nonce claim turns it into `ignored`. */
  callsIfApplied?: CallRecord[];
}

/**
 * Commits one transition in four round trips whatever it changes: the RFQ, its quotes (and the
 * accepted quote's maker's protection while PENDING) locked and read, and `nonceClaim` claimed, in
 * one call (a pair claimed before turns the transition into `ignored`: a reused nonce does
 * nothing at all); the effects decided on those rows; then one call that writes the execution's
 * new state (only if it is still ours, in the phase we read) and every changed row
 * (staged-writes.ts); then the frames, written with the commit. Without effects or a claim: `commitOwn`.
 */
async function commit(x: PerpExecutor, row: ExecutionRow, work: Commit | ((c: EffectContext) => Promise<Commit>), nonceClaim: { signer: string; nonce: number } | null = null): Promise<ExecutionRow> {
  if (typeof work !== 'function' && work.transition.effects.length === 0 && nonceClaim === null) return commitOwn(x, row, work);
  const now = x.deps.clock.now();
  return inTransaction(x.deps.db, async (tx) => {
    const locked = await lockForPerpCommit(tx, { rfqId: row.rfq_id, accountId: row.account_id, quoteId: row.quote_id, now, nonce: nonceClaim });
    if (!locked.rfq) throw new Error(`RFQ ${row.rfq_id} of execution ${row.id} not found`);
    const { rfq, quotes } = locked;
    const instrument = await resolveInstrument(x.deps, rfq.instrument_id);
    const lockedMaker = rfq.status === 'PENDING' ? quotes.find((q) => q.id === row.quote_id)?.maker_account_id : undefined;
    const writes = new StagedWrites(tx, x.deps, {
      rfq,
      instrument,
      now,
      guard: lockedMaker === undefined ? null : { guard: SelectionGuard.fromLocked(locked.protections), makerAccountId: lockedMaker },
    });
    const context: EffectContext = { tx, deps: x.deps, rfq, quotes: new Map(quotes.map((q) => [q.id, q])), instrument, now, writes };
    const spec = typeof work === 'function' ? await work(context) : work;
    let transition = spec.transition;
    let calls = [...(spec.calls ?? []), ...(spec.callsIfApplied ?? [])];
    if (!locked.claimed) {
      transition = { state: { ...row.state as ExecutionState, phase: 'ignored' }, effects: [] };
      calls = spec.calls ?? [];
    }
    for (const effect of transition.effects) await applyEffect(context, effect);
    await syncSweepFills(context);
    const decision: CallRecord = { kind: 'decision', quoteId: transition.state.currentQuoteId, request: { from: row.phase, effects: transition.effects }, reply: { to: transition.state.phase }, startedAt: now, endedAt: now };
    const failure = transition.effects.find((e) => e.kind === 'failRfq');
    const columns = {
      ...stateColumns(x, transition, spec, now),
      state: transition.state,
      ...(failure && failure.kind === 'failRfq' ? { failure_code: failure.code } : {}),
    };
    const written = await writes.flush({ id: row.id, leaseOwner: x.nodeId, phase: row.phase, columns, calls: [...calls, decision].map(callJson) });
    if (written.lost || !written.execution) throw new LeaseLost(`execution ${row.id} is no longer ours in phase ${row.phase}`);
    return written.execution;
  });
}

/** The new state, and the lease: extended, or given back with the last transition (no release after it). */
function stateColumns(x: PerpExecutor, transition: Transition, spec: Commit, now: number) {
  const ended = isTerminalExecution(transition.state.phase);
  return {
    phase: transition.state.phase,
    state: JSON.stringify(transition.state),
    ...(spec.fields ?? {}),
    next_at: spec.fields?.next_at ?? now,
    ...(ended ? { lease_owner: null, lease_until: 0 } : { lease_until: now + x.leaseMs }),
    updated_at: now,
  };
}

/**
 * A transition with no effects (the maker's order resting, a look-up still unclear, the clean-up
 * done) writes only the execution and its calls: one call of the same write function as `commit`
 * (no RFQ, quote or event rows, no transaction around it), which writes nothing unless the
 * execution is still ours and still in the phase read.
 */
async function commitOwn(x: PerpExecutor, row: ExecutionRow, spec: Commit): Promise<ExecutionRow> {
  const now = x.deps.clock.now();
  const { transition } = spec;
  const decision: CallRecord = { kind: 'decision', quoteId: transition.state.currentQuoteId, request: { from: row.phase, effects: [] }, reply: { to: transition.state.phase }, startedAt: now, endedAt: now };
  const columns = { ...stateColumns(x, transition, spec, now), state: transition.state };
  const execution = { id: row.id, leaseOwner: x.nodeId, phase: row.phase, columns, calls: [...(spec.calls ?? []), decision].map(callJson) };
  const written = await writePerpTransition(x.deps.db, { now, execution, rfqs: [], quotes: [], events: '[]' });
  if (written.lost || !written.execution) throw new LeaseLost(`execution ${row.id} is no longer ours in phase ${row.phase}`);
  return written.execution;
}

/** A venue call, recorded whatever its outcome (check-reads.ts). */
function call<T>(x: PerpExecutor, kind: string, quoteId: string | null, request: unknown, run: () => Promise<T>): Promise<VenueCall<T>> {
  return venueCall(x.deps.clock, kind, quoteId, request, run);
}

// ---- step 1-3: checks, builder fee, selection ----------------------------------------------

async function stepChecking(x: PerpExecutor, memo: RunMemo, row: ExecutionRow): Promise<ExecutionRow> {
  const { deps } = x;
  // The venue reads and the signer's recovery depend on nothing of ours: started when the accept
  // arrived (check-reads.ts) when this node took it, else now.
  const ahead = x.readsAhead?.take(row.rfq_id, row.taker_order) ?? null;
  const metaRead = ahead?.meta ?? call(x, 'meta', null, { type: 'meta' }, () => x.venue.freshMeta());
  // Read with the lease (`acquire`): a run reaches the checks only when it took the lease in `checking`.
  const read = memo.checksRead;
  if (read === null) throw new Error(`execution ${row.id}: the checks' read did not come with the lease (RFQ ${row.rfq_id} or quote ${row.quote_id} missing)`);
  memo.checksRead = null;
  const rfq = { account_id: read.account_id, instrument_id: read.instrument_id, side: read.side, taker_fee_tenth_bp: read.taker_fee_tenth_bp };
  const quote = { maker_pays_amount: read.maker_pays_amount, maker_receives_amount: read.maker_receives_amount };
  const makerActions = venueActionsOf(read);
  const taker = read.taker_address.toLowerCase() as Address;
  memo.addresses.set(rfq.account_id, taker);
  memo.addresses.set(read.maker_account_id, read.maker_address.toLowerCase() as Address);
  memo.quoteMakers.set(row.quote_id, read.maker_account_id);
  memo.actions.set(row.quote_id, makerActions);
  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  const raw: unknown = JSON.parse(row.taker_order);
  const calls: CallRecord[] = [];
  // A reason may quote the client's keys: written printable, so the store can always hold it.
  const refuse = (reason: string): CheckResult => ({ kind: 'refused', reason: printable(reason) });
  let verdict: CheckResult | null = null;
  let signer: string | null = null;
  let nonce: number | null = null;
  let cloid: string | null = null;
  let takerPx: string | null = null;
  let szDecimals: number | null = null;
  const sweep = executionState(row).sweep;

  const rate = rfq.taker_fee_tenth_bp;
  // The builder-fee approval depends only on the taker and the builder: the one read ahead for
  // this taker, or read now while `meta` is (both are venue reads, neither is cached).
  const feeRead = ahead?.taker === taker && ahead.fee !== null
    ? ahead.fee
    : rate > 0 && x.builderAddress
      ? call(x, 'maxBuilderFee', null, { type: 'maxBuilderFee', user: taker, builder: x.builderAddress }, () => x.venue.maxBuilderFee(taker, x.builderAddress!))
      : null;
  // The signer's recovery (CPU: a secp256k1 recovery) needs nothing from the venue: it runs while
  // the reads are in flight, on the object `checkTakerOrder` checks below, or (ahead) on the same
  // JSON text parsed the same way. The checks hand back this object's own action and nonce (with
  // its signature's r and s padded, which recovery pads anyway) when the order passes, so the
  // address is the one they would have recovered; it is used only then.
  const recovery = ahead?.recovery ?? (x.recover ?? recoverSignerOfText)(row.taker_order, x.network);
  const meta = await metaRead;
  calls.push(meta.record);
  const assetIndex = meta.reply ? meta.reply.universe.findIndex((asset) => asset.name === instrument.base) : -1;
  if (!meta.reply) verdict = refuse(`venue meta unreadable: ${meta.error}`);
  else if (assetIndex === -1) verdict = refuse(`coin ${instrument.base} is not in the venue's universe`);

  const builder = rate > 0 && x.builderAddress ? { address: x.builderAddress, feeTenthBp: rate } : null;
  if (verdict === null && meta.reply) {
    szDecimals = meta.reply.universe[assetIndex]!.szDecimals;
    const decimals = { baseDecimals: instrument.baseDecimals, quoteDecimals: instrument.quoteDecimals, szDecimals };
    // A sweep's order is checked against its selection: the selected size at the worst selected price.
    const expected = sweep ? perpSweepTakerTerms(rfq.side, sweep.legs.map(legAmounts), decimals) : undefined;
    const check = checkTakerOrder(raw, {
      ...(expected ? { expected } : {}),
      side: rfq.side,
      legs: { makerPays: quote.maker_pays_amount, makerReceives: quote.maker_receives_amount },
      baseDecimals: instrument.baseDecimals,
      quoteDecimals: instrument.quoteDecimals,
      assetIndex,
      szDecimals: meta.reply.universe[assetIndex]!.szDecimals,
      builder,
      now: deps.clock.now(),
    });
    if (!check.ok) {
      verdict = refuse(check.errors.map((e) => `${e.field}: ${e.reason}`).join('; '));
    } else {
      const signed = check.order.signed;
      nonce = signed.nonce;
      cloid = check.cloid;
      takerPx = check.order.action.orders[0].p;
      const recovered = signed.action === (raw as { action?: unknown }).action ? await recovery : await recoverSigner(signed, x.network);
      if (recovered.address !== null) signer = recovered.address.toLowerCase();
      else verdict = refuse(`signature does not recover: ${recovered.error instanceof Error ? recovered.error.message : String(recovered.error)}`);
    }
  }
  if (verdict === null && signer !== null && signer !== taker) {
    const agents = await call(x, 'extraAgents', null, { type: 'extraAgents', user: taker }, () => x.venue.extraAgents(taker));
    calls.push(agents.record);
    if (!agents.reply) verdict = refuse(`API wallets unreadable: ${agents.error}`);
    else if (agents.reply.some((listed) => listed.address.toLowerCase() === signer)) {
      // Listed, so named: its approval is the one `extraAgents` shows, and that has expired.
      if (!isAuthorisedSigner(signer as Address, taker, agents.reply, deps.clock.now())) verdict = refuse(`signer is neither the account nor an unexpired API wallet of it (recovered for the venue network "${x.network}")`);
    } else {
      // `extraAgents` lists named API wallets only; an unnamed one names its account in `userRole`.
      const agent = signer as Address;
      const role = await call(x, 'userRole', null, { type: 'userRole', user: agent }, () => x.venue.userRole(agent));
      calls.push(role.record);
      if (!role.reply) verdict = refuse(`API wallets unreadable: ${role.error}`);
      else if (!isAgentOf(role.reply, taker)) verdict = refuse(`signer is neither the account nor an unexpired API wallet of it (recovered for the venue network "${x.network}")`);
    }
  }
  let approved: number | null = null;
  if (verdict === null) {
    const current = (await deps.refdata.current()).instruments.get(instrument.instrumentId);
    if (current && current.takerFeeTenthBp !== rate) verdict = refuse(`builder fee rate changed from ${rate} to ${current.takerFeeTenthBp}`);
    else if (rate > 0) {
      if (!x.builderAddress) verdict = refuse('no builder address configured');
      else {
        const fee = await feeRead!;
        if (fee.reply === undefined) verdict = refuse(`builder fee approval unreadable: ${fee.error}`);
        else approved = fee.reply;
      }
    }
  }

  // Every venue request is stored with the execution, a read the verdict did not need included.
  if (feeRead !== null) calls.push((await feeRead).record);
  if (ahead?.fee && ahead.fee !== feeRead) calls.push((await ahead.fee).record);

  return commit(x, row, async (c) => {
    const state = executionState(row);
    // A sweep's legs must still be the quotes, at the versions, its order was signed over.
    const live = c.rfq.status === 'PENDING' && (sweep
      ? sweep.legs.every((l) => c.quotes.get(l.quoteId)?.status === 'SUBMITTED' && c.quotes.get(l.quoteId)?.version === l.version)
      : c.quotes.get(row.quote_id)?.status === 'SUBMITTED');
    let result: CheckResult;
    if (verdict !== null) result = verdict;
    else if (!live) result = refuse('the RFQ or the quote moved on during the checks');
    else if (sweep) {
      const terms = { ...sweepTerms(c.rfq, c.instrument), baseStep: BigInt(sweep.baseStep) };
      const decimals = { baseDecimals: c.instrument.baseDecimals, quoteDecimals: c.instrument.quoteDecimals, szDecimals: szDecimals! };
      const backups = rankSweepBackups(terms, [...c.quotes.values()].map(rankedQuote), new Set(sweep.legs.map((l) => l.quoteId)), takerPx!, decimals, c.now);
      result = { kind: 'passed', approvedFeeTenthBp: approved, rateTenthBp: rate, cascade: backups.map((b) => b.quoteId), backups };
    } else {
      const terms = rfqTerms(c.rfq, c.instrument);
      const cascade = rankCascade(terms, [...c.quotes.values()].map(quoteTerms), row.quote_id, takerPx!, c.instrument, c.now);
      result = { kind: 'passed', approvedFeeTenthBp: approved, rateTenthBp: rate, cascade };
    }
    const transition = afterChecks(state, result);
    // Entering `makerSending`, the "maker order sending" record goes with the move (one statement
    // fewer before the send): from this commit on, a run that finds it looks the order up by its
    // cloid rather than send the same nonce again.
    const sending = transition.state.phase === 'makerSending' && transition.state.currentQuoteId === row.quote_id && makerActions !== null;
    if (sending) memo.sendingRecorded = row.quote_id;
    return {
      transition,
      calls,
      ...(sending ? { callsIfApplied: [{ kind: 'makerOrderSending', quoteId: row.quote_id, startedAt: c.now }] } : {}),
      fields: { ...(signer !== null ? { signer } : {}), ...(nonce !== null ? { nonce } : {}), cloid },
    };
    // Recovered pairs are claimed whatever the verdict: a reused one does nothing at all.
  }, signer !== null && nonce !== null ? { signer, nonce } : null);
}

/** A selected sweep leg's amounts as its accept recorded them. */
function legAmounts(leg: SweepLegState) {
  return { baseQty: BigInt(leg.baseQty), quote: { makerPays: { amount: BigInt(leg.makerPays ?? '0') }, makerReceives: { amount: BigInt(leg.makerReceives ?? '0') } } };
}

// ---- step 4: the maker's order ---------------------------------------------------------------

/**
 * The maker's order looked up by cloid for a bounded time: open is resting, ended is not placed.
 * `absent`: what it means when the venue never shows it, `null` for an unclear send (not the
 * maker's doing), or the refusal that made us look (a duplicate nonce: the maker's, when the venue
 * has no order under that cloid).
 */
async function lookUpMakerOrder(x: PerpExecutor, user: Address, cloid: Address | null, calls: CallRecord[], absent: string | null = null): Promise<MakerOrderResult> {
  if (cloid === null) return { kind: 'refused', makerFault: absent !== null, reason: absent ?? 'maker order outcome unknown and it has no cloid' };
  const until = x.deps.clock.now() + x.makerLookupMs;
  for (;;) {
    const lookup = await call(x, 'orderStatus', null, { type: 'orderStatus', user, oid: cloid }, () => x.venue.orderStatusByCloid(user, cloid));
    calls.push(lookup.record);
    const found = lookup.reply === undefined ? { kind: 'unknown' as const } : lookedUpOrder(lookup.reply);
    if (found.kind === 'open') return { kind: 'resting' };
    if (found.kind === 'ended') return { kind: 'refused', makerFault: false, reason: `maker order ${found.status}` };
    if (x.deps.clock.now() >= until) {
      return absent === null ? { kind: 'refused', makerFault: false, reason: 'maker order outcome unknown' } : { kind: 'refused', makerFault: true, reason: `${absent}; the venue has no order with its cloid` };
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, x.resolvePollMs)));
  }
}

async function stepMakerSending(x: PerpExecutor, memo: RunMemo, row: ExecutionRow): Promise<{ row: ExecutionRow; sendTaker: boolean }> {
  const state = executionState(row);
  const quoteId = state.currentQuoteId;
  // Only a run that found the execution already in `makerSending` (a crash, a lost lease) can
  // find a send recorded before it; a run that committed the move itself knows there was none,
  // and reads the order and records "sending" in one statement.
  const resumed = !memo.enteredMakerSending;
  // The checks' commit recorded the send already (and read the order): no statement here.
  const recorded = !resumed && memo.sendingRecorded === quoteId;
  const [maker, actions] = await Promise.all([
    makerAddressOf(x, memo, quoteId),
    resumed || recorded ? actionsOf(x, memo, quoteId) : recordMakerOrderSending(x.deps.db, row.id, quoteId, x.deps.clock.now()),
  ]);
  memo.actions.set(quoteId, actions);
  const calls: CallRecord[] = [];
  let result: MakerOrderResult;
  if (actions === null) {
    result = { kind: 'refused', makerFault: false, reason: 'the quote carries no maker order' };
  } else {
    const cloid = cloidOfSigned(actions.order);
    const earlier = resumed && (await callsOfExecution(x.deps.db, row.id)).some((c) => c.kind === 'makerOrderSending' && c.quote_id === quoteId);
    if (earlier) {
      // A previous run may have sent it: look it up rather than send the same nonce again.
      result = await lookUpMakerOrder(x, maker, cloid, calls);
    } else {
      if (resumed) await recordCall(x.deps.db, row.id, { kind: 'makerOrderSending', quoteId, startedAt: x.deps.clock.now() });
      if (nonceExpired(actions.order.nonce, x.deps.clock.now())) {
        // The venue would refuse it for its age: not sent, and the maker's doing (it signed it so).
        result = { kind: 'refused', makerFault: true, reason: 'the maker order\u2019s nonce is older than the venue\u2019s one-day window' };
      } else {
        const sent = await call(x, 'makerOrder', quoteId, actions.order, () => x.venue.sendExchange(actions.order));
        calls.push(sent.record);
        const outcome = sent.reply === undefined ? { kind: 'unclear' as const, message: sent.error ?? 'no reply' } : orderOutcome(sent.reply);
        if (outcome.kind === 'resting' || outcome.kind === 'filled') result = { kind: 'resting' };
        // The same signed order may already be on the book: the maker's fault only if it is not.
        else if (outcome.kind === 'refused' && isDuplicateNonce(outcome.message)) result = await lookUpMakerOrder(x, maker, cloid, calls, outcome.message);
        else if (outcome.kind === 'refused') result = { kind: 'refused', makerFault: isMakerFault(outcome.message), reason: outcome.message };
        else result = await lookUpMakerOrder(x, maker, cloid, calls);
      }
    }
  }
  const transition = afterMakerOrder(state, result);
  const sendTaker = transition.state.phase === 'takerSending';
  // "Taker order sending" is committed here, before the send: after this commit it is sent at most once.
  const next = await commit(x, row, { transition, calls, ...(sendTaker ? { fields: { taker_sent_at: x.deps.clock.now() } } : {}) });
  return { row: next, sendTaker };
}

// ---- steps 5-6: the taker's order and its outcome --------------------------------------------

async function makerFilledSize(x: PerpExecutor, memo: RunMemo, quoteId: string, calls: CallRecord[]): Promise<string | null> {
  const actions = await actionsOf(x, memo, quoteId);
  const cloid = actions ? cloidOfSigned(actions.order) : null;
  if (cloid === null) return null;
  const maker = await makerAddressOf(x, memo, quoteId);
  // The order rests (its send said so): `unknownOid` is the venue's read lag between its API
  // servers, not an answer; read again for the maker look-up's bound.
  const until = x.deps.clock.now() + x.makerLookupMs;
  const read = async () => {
    const reply = await call(x, 'orderStatus', quoteId, { type: 'orderStatus', user: maker, oid: cloid }, () => x.venue.orderStatusByCloid(maker, cloid));
    calls.push(reply.record);
    return reply;
  };
  let lookup = await read();
  while (lookup.reply !== undefined && isUnknownOid(lookup.reply) && x.deps.clock.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, x.resolvePollMs)));
    lookup = await read();
  }
  if (lookup.reply !== undefined && lookedUpOrder(lookup.reply).kind === 'ended') memo.makerOrdersEnded.add(quoteId);
  const order = (lookup.reply as { status?: string; order?: { order?: { origSz?: unknown; sz?: unknown } } } | undefined)?.order?.order;
  if (typeof order?.origSz !== 'string' || typeof order.sz !== 'string') return null;
  try {
    const orig = canonicalVenueDecimal(order.origSz);
    const left = canonicalVenueDecimal(order.sz);
    return subtractDecimals(orig, left);
  } catch {
    return null;
  }
}

/**
 * The taker's fill with its makers' own: the winner's maker order's fill, or on a sweep each
 * resting leg's (read side by side, recorded in leg order).
 */
async function takerFillOf(x: PerpExecutor, memo: RunMemo, state: ExecutionState, taker: { filledSize: string; avgPx: string }, calls: CallRecord[]): Promise<TakerFill> {
  if (!state.sweep) return { ...taker, makerFilledSize: await makerFilledSize(x, memo, state.currentQuoteId, calls) };
  const resting = state.sweep.legs.filter((l) => l.state === 'resting');
  const reads = await Promise.all(resting.map(async (leg) => {
    const own: CallRecord[] = [];
    return { leg, own, size: await makerFilledSize(x, memo, leg.quoteId, own) };
  }));
  const makerFills: Record<string, string | null> = {};
  for (const read of reads) {
    calls.push(...read.own);
    makerFills[read.leg.quoteId] = read.size;
  }
  return { ...taker, makerFilledSize: null, makerFills };
}

function subtractDecimals(a: string, b: string): string {
  const scale = 8;
  const units = (t: string) => BigInt((t.split('.')[0] ?? '0') + (t.split('.')[1] ?? '').padEnd(scale, '0'));
  const diff = units(a) - units(b);
  const digits = diff.toString().padStart(scale + 1, '0');
  const fraction = digits.slice(-scale).replace(/0+$/, '');
  return fraction.length > 0 ? `${digits.slice(0, -scale)}.${fraction}` : digits.slice(0, -scale);
}

async function stepTakerSend(x: PerpExecutor, memo: RunMemo, row: ExecutionRow): Promise<ExecutionRow> {
  const state = executionState(row);
  const signed = takerOrderOf(row);
  const calls: CallRecord[] = [];
  // Exactly once: no retry at any layer. A throw is an unclear outcome, resolved by cloid.
  const sent = await call(x, 'takerOrder', state.currentQuoteId, signed, () => x.venue.sendExchange(signed));
  calls.push(sent.record);
  const outcome = sent.reply === undefined ? { kind: 'unclear' as const, message: sent.error ?? 'no reply' } : orderOutcome(sent.reply);
  let result: TakerOrderResult;
  if (outcome.kind === 'filled') {
    result = { kind: 'filled', fill: await takerFillOf(x, memo, state, { filledSize: canonicalVenueDecimal(outcome.totalSz), avgPx: canonicalVenueDecimal(outcome.avgPx) }, calls) };
  } else if (outcome.kind === 'refused' && isDuplicateNonce(outcome.message)) {
    result = await takerDuplicateNonce(x, memo, row, outcome.message, calls);
  } else if (outcome.kind === 'refused') {
    result = isBuilderFeeRefusal(outcome.message) ? { kind: 'builderFeeNotApproved', reason: outcome.message } : { kind: 'notFilled', reason: outcome.message };
  } else {
    result = { kind: 'unclear', reason: outcome.kind === 'resting' ? 'an IOC order reported resting' : outcome.message };
  }
  const window = row.cloid === null ? 0 : x.resolveWindowMs;
  const transition = afterTakerOrder(state, result, x.deps.clock.now(), window);
  return commit(x, row, { transition, calls, fields: { taker_reply_at: x.deps.clock.now(), next_at: x.deps.clock.now() + (transition.state.phase === 'resolving' ? x.resolvePollMs : 0) } });
}

/**
 * The taker's IOC refused for a duplicate nonce: the taker holds the same signed bytes and may
 * have sent them itself, so the order may have been placed (and filled). Looked up by cloid for
 * the same bounded time as a maker's order, since the venue's API servers can answer `unknownOid`
 * for an order placed a moment ago: the venue still having no such order at the end means not
 * placed (nothing filled); anything it knows, or no answer, is resolved like an unclear send.
 */
async function takerDuplicateNonce(x: PerpExecutor, memo: RunMemo, row: ExecutionRow, message: string, calls: CallRecord[]): Promise<TakerOrderResult> {
  if (row.cloid === null) return { kind: 'unclear', reason: `${message}; the order has no cloid to look up` };
  const taker = await takerAddressOf(x, memo, row);
  const cloid = row.cloid as Address;
  const until = x.deps.clock.now() + x.makerLookupMs;
  for (;;) {
    const lookup = await call(x, 'orderStatus', executionState(row).currentQuoteId, { type: 'orderStatus', user: taker, oid: cloid }, () => x.venue.orderStatusByCloid(taker, cloid));
    calls.push(lookup.record);
    if (lookup.reply === undefined || !isUnknownOid(lookup.reply)) return { kind: 'unclear', reason: message };
    if (x.deps.clock.now() >= until) return { kind: 'notFilled', reason: `${message}; the venue has no order with its cloid` };
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, x.resolvePollMs)));
  }
}

async function takerAddressOf(x: PerpExecutor, memo: RunMemo, row: ExecutionRow): Promise<Address> {
  return addressOf(x, memo, await takerAccountOfRfq(x.deps.db, row.rfq_id));
}

async function stepResolving(x: PerpExecutor, memo: RunMemo, row: ExecutionRow): Promise<ExecutionRow> {
  const state = executionState(row);
  const calls: CallRecord[] = [];
  const now = x.deps.clock.now();
  let result: TakerOrderResult = { kind: 'unclear', reason: 'the order has no cloid' };
  if (row.cloid !== null) {
    const taker = await takerAddressOf(x, memo, row);
    const cloid = row.cloid as Address;
    const lookup = await call(x, 'orderStatus', state.currentQuoteId, { type: 'orderStatus', user: taker, oid: cloid }, () => x.venue.orderStatusByCloid(taker, cloid));
    calls.push(lookup.record);
    const found = lookup.reply === undefined ? { kind: 'unknown' as const } : lookedUpOrder(lookup.reply);
    result = { kind: 'unclear', reason: lookup.error ?? 'the venue does not know the cloid' };
    if (found.kind !== 'unknown') {
      const since = (row.taker_sent_at ?? row.created_at) - FILL_CLOCK_SLACK_MS;
      const fills = await call(x, 'userFillsByTime', state.currentQuoteId, { type: 'userFillsByTime', user: taker, startTime: since }, () => x.venue.userFillsByTime(taker, since));
      calls.push(fills.record);
      const oid = (lookup.reply as { order?: { order?: { oid?: unknown } } }).order?.order?.oid;
      const mine = Array.isArray(fills.reply) ? fills.reply.filter(isVenueFill).filter((f) => f.cloid === cloid || (typeof oid === 'number' && f.oid === oid)) : null;
      const summary = mine === null ? null : summariseFills(mine);
      if (summary !== null) result = { kind: 'filled', fill: await takerFillOf(x, memo, state, summary, calls) };
      // Not filled only when the venue's own record of the order agrees: a filled order whose fills a read does not show is not known yet.
      else if (mine !== null && found.kind === 'ended' && !found.filled) result = { kind: 'notFilled', reason: `taker order ${found.status} with no fill` };
      else result = { kind: 'unclear', reason: fills.error ?? 'order found but its fills are not yet reported' };
    }
  }
  const window = row.cloid === null ? 0 : x.resolveWindowMs;
  const transition = afterTakerOrder(state, result, now, window);
  return commit(x, row, { transition, calls, fields: { next_at: now + (transition.state.phase === 'resolving' ? x.resolvePollMs : 0) } });
}

// ---- step 7: clean-up --------------------------------------------------------------------------

async function stepCleanup(x: PerpExecutor, memo: RunMemo, row: ExecutionRow): Promise<ExecutionRow> {
  const state = executionState(row);
  const calls: CallRecord[] = [];
  for (const quoteId of state.makerOrdersSent) {
    const actions = await actionsOf(x, memo, quoteId);
    if (actions === null) continue;
    if (memo.makerOrdersEnded.has(quoteId)) {
      // Off the book already (its look-up said so): a cancel would spend weight to be told "filled".
      calls.push({ kind: 'makerCancelNotNeeded', quoteId, startedAt: x.deps.clock.now(), endedAt: x.deps.clock.now(), error: null });
      continue;
    }
    if (nonceExpired(actions.cancel.nonce, x.deps.clock.now())) {
      // The venue would refuse it for its age: not sent; what it was to cancel is the operator's to clear.
      calls.push({ kind: 'cancelAnomaly', quoteId, startedAt: x.deps.clock.now(), endedAt: x.deps.clock.now(), error: 'the maker cancel\u2019s nonce is older than the venue\u2019s one-day window: not sent' });
      continue;
    }
    let done = false;
    for (let attempt = 0; attempt < CANCEL_ATTEMPTS && !done; attempt++) {
      const sent = await call(x, 'makerCancel', quoteId, actions.cancel, () => x.venue.sendExchange(actions.cancel));
      calls.push(sent.record);
      done = sent.reply !== undefined && cancelSucceeded(sent.reply);
      // The venue answered and refused: sending the same signed cancel again cannot change that.
      if (sent.reply !== undefined) break;
    }
    // A settlement anomaly for the operator: something of the maker's order may stay on the book.
    if (!done) calls.push({ kind: 'cancelAnomaly', quoteId, startedAt: x.deps.clock.now(), endedAt: x.deps.clock.now(), error: 'the maker cancel did not succeed' });
  }
  return commit(x, row, { transition: afterCleanup(state), calls });
}

// ---- the driver --------------------------------------------------------------------------------

export interface RunOptions {
  /**
   * Takes the clean-up (the maker cancels, after the outcome is committed) off the caller: the run
   * returns once the outcome is committed and hands the rest, lease still held, to `handOff`,
   * which must await it (it releases the lease itself). The executor's slots then go to accepts
   * still waiting for their checks rather than to a cancel no taker waits on.
   */
  handOffCleanup?: (rest: Promise<void>) => void;
}

/**
 * Runs one execution as far as it can go now. Safe to call from any node at any time: it does
 * nothing when another node holds the execution, when it is not due, or when it has ended.
 */
export async function runPerpExecution(x: PerpExecutor, id: string, options: RunOptions = {}): Promise<void> {
  const acquired = await acquire(x, id);
  if (!acquired) return;
  let row: ExecutionRow = acquired.row;
  const memo = newMemo(acquired.checksRead);
  let takerSendCommitted = false;
  let handedOff = false;
  try {
    for (let steps = 0; steps < 100 && !isTerminalExecution(executionPhase(row)); steps++) {
      const phase = executionPhase(row);
      if (phase === 'checking') {
        row = await stepChecking(x, memo, row);
        memo.enteredMakerSending = true;
      } else if (phase === 'makerSending') {
        const next = await stepMakerSending(x, memo, row);
        row = next.row;
        takerSendCommitted = next.sendTaker;
        // A promoted backup: this run committed its `makerSending` too.
        memo.enteredMakerSending = true;
      } else if (phase === 'takerSending') {
        if (takerSendCommitted) row = await stepTakerSend(x, memo, row);
        else row = await commit(x, row, { transition: afterLostTakerSend(executionState(row), x.deps.clock.now(), row.cloid === null ? 0 : x.resolveWindowMs) });
        takerSendCommitted = false;
      } else if (phase === 'resolving') {
        if (row.next_at > x.deps.clock.now()) break;
        row = await stepResolving(x, memo, row);
        if (row.phase === 'resolving') break;
      } else if (phase === 'cleanup') {
        if (options.handOffCleanup) {
          handedOff = true;
          options.handOffCleanup(cleanUpAndRelease(x, memo, row));
          return;
        }
        row = await stepCleanup(x, memo, row);
      }
    }
  } catch (error) {
    if (error instanceof LeaseLost) return;
    if (!isPermanentWriteRefusal(error) || row.lease_owner !== x.nodeId || isTerminalExecution(executionPhase(row))) throw error;
    row = await endUnwritable(x, memo, row, error);
  } finally {
    // A run that committed the last transition gave the lease back with it.
    if (!handedOff && row.lease_owner === x.nodeId) await release(x, id);
  }
}

/**
 * The store refused a transition's write for good (isPermanentWriteRefusal): the execution ends
 * from the last state it committed (afterUnwritable), with a reason of ours and no venue record,
 * so this write cannot meet the same refusal; maker orders sent get their cancels.
 */
async function endUnwritable(x: PerpExecutor, memo: RunMemo, row: ExecutionRow, error: unknown): Promise<ExecutionRow> {
  const reason = `the execution's record could not be stored (SQLSTATE ${sqlState(error)}); it ended rather than retry`;
  try {
    let ended = await commit(x, row, { transition: afterUnwritable(executionState(row), reason) });
    if (executionPhase(ended) !== 'cleanup') return ended;
    try {
      ended = await stepCleanup(x, memo, ended);
    } catch (cleanup) {
      if (!isPermanentWriteRefusal(cleanup)) throw cleanup;
      ended = await commit(x, ended, { transition: afterUnwritable(executionState(ended), reason) });
    }
    return ended;
  } catch (next) {
    if (next instanceof LeaseLost) return row;
    throw next;
  }
}

async function cleanUpAndRelease(x: PerpExecutor, memo: RunMemo, row: ExecutionRow): Promise<void> {
  let held = row;
  try {
    held = await stepCleanup(x, memo, row);
  } catch (error) {
    if (error instanceof LeaseLost) return;
    if (!isPermanentWriteRefusal(error)) throw error;
    held = await endUnwritable(x, memo, row, error);
  } finally {
    if (held.lease_owner === x.nodeId) await release(x, row.id);
  }
}
