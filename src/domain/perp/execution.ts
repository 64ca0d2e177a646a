/**
 * The perp execution state machine (DESIGN.md 9.3, steps 1-7). Pure: each function takes the
 * execution's state and what was observed (a check result, a venue reply, a look-up) and returns
 * the next state and the effects the service must commit in ONE transaction. Venue calls happen
 * between transitions, never inside one, and never under a row lock.
 *
 * Phases:
 * - `checking`: accepted (202); checks and the builder-fee read are pending.
 * - `makerSending`: the RFQ is QUOTED; the current winner's maker order (ALO) is committed as
 *   sending. After a crash here the order is looked up by its cloid, not sent blindly again.
 * - `takerSending`: the taker's IOC is committed as sending; it is sent at most once, by the node
 *   that committed this phase. Found here after a crash (no reply recorded): resolve, never resend.
 * - `resolving`: the taker's outcome was unclear; look it up by cloid until `resolveBy`.
 * - `cleanup`: the RFQ has ended; the maker's cancel is still to be sent.
 * Terminal: `refused` (quote FAILED, RFQ still PENDING), `ignored` (a reused nonce: nothing at
 * all changed), `done`.
 */

import type { SweepBackup, SweepLegPlan } from './sweep.ts';
import { refillSweepLeg } from './sweep.ts';

export type ExecutionPhase = 'checking' | 'makerSending' | 'takerSending' | 'resolving' | 'cleanup' | 'refused' | 'ignored' | 'done';

export const EXECUTION_PHASES = ['checking', 'makerSending', 'takerSending', 'resolving', 'cleanup', 'refused', 'ignored', 'done'] as const satisfies readonly ExecutionPhase[];

/**
 * While an execution is `checking` the taker's order, its RFQ is being accepted: another accept
 * of it is refused and the auction close passes it over (the check ends in QUOTED or a refusal).
 * Checked inside the database as `rfq_accepting_execution` (src/store/sql/rfq_accepting_execution.sql),
 * held to this one by test/store/sql-checks.test.ts.
 */
export function holdsRfqForAccept(phase: ExecutionPhase): boolean {
  return phase === 'checking';
}

export type PerpFailureCode = 'EXECUTION_NOT_FILLED' | 'SETTLEMENT_FAILED' | 'EXECUTION_UNCONFIRMED';

/** A leg of a perp SWEEP as its execution holds it: `pending` until its maker order rests or is refused. */
export interface SweepLegState extends SweepLegPlan {
  state: 'pending' | 'resting' | 'failed';
  /**
   * A leg the accept selected: the quote's version and legs (integer text) as the taker's order
   * was signed over them, checked again when the selection is committed. Absent on a promoted backup.
   */
  version?: number;
  makerPays?: string;
  makerReceives?: string;
}

/**
 * A perp SWEEP's execution (DESIGN.md section 14): the legs in rank order (a promoted backup after
 * the leg it refills), the backups left, and the least the resting legs must reach before the
 * taker's order is sent. Amounts are decimal integer text in base units (the state is JSON).
 */
export interface SweepExecution {
  legs: SweepLegState[];
  backups: SweepBackup[];
  minFillQty: string;
  baseStep: string;
}

export interface ExecutionState {
  phase: ExecutionPhase;
  /** The quote whose maker order is (or was last) in play; the accepted quote until a promotion. */
  currentQuoteId: string;
  /** Backups behind the current winner, best first; index i has `position` i + 1. */
  cascade: string[];
  /** Quotes whose maker order was sent (or may have been): each gets its cancel at clean-up. */
  makerOrdersSent: string[];
  /** Unix ms until which an unclear taker outcome is looked up; null outside `resolving`. */
  resolveBy: number | null;
  /** Present on a SWEEP RFQ: `currentQuoteId` is then the leg whose maker order is in play. */
  sweep?: SweepExecution;
}

/** The fill of the taker's order, in canonical decimal strings as the venue reports them. */
export interface TakerFill {
  filledSize: string;
  avgPx: string;
  /** The maker's own order's fill as the venue reports it; null when it could not be read. */
  makerFilledSize: string | null;
  /** On a sweep: each resting leg's maker order's fill as the venue reports it (null: unread). */
  makerFills?: Record<string, string | null>;
}

export type ExecutionEffect =
  /** The accepted quote FAILED; the RFQ stays PENDING (spec, "perp accept refused"). */
  | { kind: 'refuseQuote'; quoteId: string; reason: string }
  /**
   * RFQ QUOTED, the winner SELECTED, the cascade keeps SUBMITTED with positions, the rest
   * NOT_SELECTED; on a sweep every leg SELECTED at its size (`legs`, the first is `quoteId`).
   */
  | { kind: 'select'; quoteId: string; cascade: string[]; legs?: SweepLegPlan[] }
  /** Count a maker failure toward suspension. */
  | { kind: 'makerFailure'; quoteId: string; reason: string }
  /** The winner FAILED (its maker order did not rest). */
  | { kind: 'failWinner'; quoteId: string }
  /** A backup becomes the winner (SELECTED), or on a sweep a leg at `leg`'s size; the others' positions are renumbered. */
  | { kind: 'promote'; quoteId: string; cascade: string[]; leg?: SweepLegPlan }
  /** A sweep's resting legs SETTLED or FAILED by the fill spread over them, the RFQ ended by them, the backups NOT_SELECTED. */
  | { kind: 'settleSweep'; legs: string[]; fill: TakerFill }
  /** RFQ SETTLED, the winner SETTLED with the fill fields, the backups NOT_SELECTED. */
  | { kind: 'settle'; quoteId: string; fill: TakerFill }
  /** RFQ FAILED with the code, the winner FAILED (when there is one; on a sweep every SELECTED leg), the backups NOT_SELECTED. */
  | { kind: 'failRfq'; quoteId: string | null; code: PerpFailureCode; reason: string };

export interface Transition {
  state: ExecutionState;
  effects: ExecutionEffect[];
}

function assertPhase(state: ExecutionState, ...phases: ExecutionPhase[]): void {
  if (!phases.includes(state.phase)) throw new RangeError(`execution is ${state.phase}; expected ${phases.join(' or ')}`);
}

export function initialExecution(quoteId: string, sweep?: SweepExecution): ExecutionState {
  return { phase: 'checking', currentQuoteId: quoteId, cascade: [], makerOrdersSent: [], resolveBy: null, ...(sweep ? { sweep } : {}) };
}

export function isTerminalExecution(phase: ExecutionPhase): boolean {
  return phase === 'refused' || phase === 'ignored' || phase === 'done';
}

/** The phases an execution ends in, as a list (for the store's queries). */
export const TERMINAL_EXECUTION_PHASES: readonly ExecutionPhase[] = EXECUTION_PHASES.filter(isTerminalExecution);

/** What steps 1-2 found, before anything is sent. */
export type CheckResult =
  /** The (signer, nonce) pair was already claimed: nothing at all happens. */
  | { kind: 'nonceReused' }
  /** The order, signer or builder-fee read failed: a refusal. */
  | { kind: 'refused'; reason: string }
  /**
   * All checks passed. `approvedFeeTenthBp` is the main wallet's approval (null when the quote
   * carries no builder fee); `rateTenthBp` the rate the order must carry (0 when none);
   * `cascade` the other SUBMITTED quotes the taker's order would also cross, ranked.
   */
  | { kind: 'passed'; approvedFeeTenthBp: number | null; rateTenthBp: number; cascade: string[]; backups?: SweepBackup[] };

/** Steps 1-3: the checks' verdict applied. */
export function afterChecks(state: ExecutionState, result: CheckResult): Transition {
  assertPhase(state, 'checking');
  const quoteId = state.currentQuoteId;
  switch (result.kind) {
    case 'nonceReused':
      return { state: { ...state, phase: 'ignored' }, effects: [] };
    case 'refused': {
      // A sweep's accept is refused as one: each quote it chose, as the single accept's.
      const refused = state.sweep ? state.sweep.legs.map((l) => l.quoteId) : [quoteId];
      return { state: { ...state, phase: 'refused' }, effects: refused.map((id) => ({ kind: 'refuseQuote' as const, quoteId: id, reason: result.reason })) };
    }
    case 'passed': {
      if (state.sweep) return afterSweepChecks(state, state.sweep, result);
      const select: ExecutionEffect = { kind: 'select', quoteId, cascade: result.cascade };
      if (result.rateTenthBp > 0 && (result.approvedFeeTenthBp ?? 0) < result.rateTenthBp) {
        // Selected, then failed in the next step: nothing is sent, so there is no cancel to send.
        return {
          state: { ...state, phase: 'done', cascade: [] },
          effects: [select, { kind: 'failRfq', quoteId, code: 'SETTLEMENT_FAILED', reason: 'builder fee approval below the rate' }],
        };
      }
      return { state: { ...state, phase: 'makerSending', cascade: result.cascade, makerOrdersSent: [quoteId] }, effects: [select] };
    }
  }
}

/** What became of the current winner's maker order (ALO). */
export type MakerOrderResult =
  | { kind: 'resting' }
  /** Refused; `makerFault` says whether it counts toward the maker's suspension. */
  | { kind: 'refused'; makerFault: boolean; reason: string };

/**
 * Step 4. Resting: the taker's order is next (`takerSending` must be committed before the send).
 * Refused: the winner FAILED, the first backup promoted (its maker order is next), or, with no
 * backup left, the RFQ FAILED `EXECUTION_NOT_FILLED` without the taker's order ever being sent.
 */
export function afterMakerOrder(state: ExecutionState, result: MakerOrderResult): Transition {
  assertPhase(state, 'makerSending');
  if (state.sweep) return afterSweepMakerOrder(state, state.sweep, result);
  if (result.kind === 'resting') return { state: { ...state, phase: 'takerSending' }, effects: [] };
  const failed = state.currentQuoteId;
  const effects: ExecutionEffect[] = [];
  if (result.makerFault) effects.push({ kind: 'makerFailure', quoteId: failed, reason: result.reason });
  const [next, ...rest] = state.cascade;
  if (next === undefined) {
    effects.push({ kind: 'failRfq', quoteId: failed, code: 'EXECUTION_NOT_FILLED', reason: `maker order not placed: ${result.reason}` });
    return { state: { ...state, phase: 'cleanup', cascade: [] }, effects };
  }
  effects.push({ kind: 'failWinner', quoteId: failed }, { kind: 'promote', quoteId: next, cascade: rest });
  return {
    state: { ...state, phase: 'makerSending', currentQuoteId: next, cascade: rest, makerOrdersSent: [...state.makerOrdersSent, next] },
    effects,
  };
}

/** What became of the taker's IOC, from its reply or from resolution. */
export type TakerOrderResult =
  | { kind: 'filled'; fill: TakerFill }
  /** Not matched, refused for margin or any other reason: nothing filled. */
  | { kind: 'notFilled'; reason: string }
  /** Refused because the builder fee is not approved at the rate. */
  | { kind: 'builderFeeNotApproved'; reason: string }
  /** No answer, a timeout, a reset, or a look-up that could not tell. */
  | { kind: 'unclear'; reason: string };

/** Steps 5-6: the taker's outcome. `now` and `resolveWindowMs` bound the look-ups after an unclear one. */
export function afterTakerOrder(state: ExecutionState, result: TakerOrderResult, now: number, resolveWindowMs: number): Transition {
  assertPhase(state, 'takerSending', 'resolving');
  const quoteId = state.currentQuoteId;
  const ended = { ...state, phase: 'cleanup' as const, resolveBy: null, cascade: [] };
  switch (result.kind) {
    case 'filled':
      if (state.sweep) return { state: ended, effects: [{ kind: 'settleSweep', legs: restingLegs(state.sweep).map((l) => l.quoteId), fill: result.fill }] };
      return { state: ended, effects: [{ kind: 'settle', quoteId, fill: result.fill }] };
    case 'notFilled':
      return { state: ended, effects: [{ kind: 'failRfq', quoteId, code: 'EXECUTION_NOT_FILLED', reason: result.reason }] };
    case 'builderFeeNotApproved':
      return { state: ended, effects: [{ kind: 'failRfq', quoteId, code: 'SETTLEMENT_FAILED', reason: result.reason }] };
    case 'unclear': {
      const resolveBy = state.resolveBy ?? now + resolveWindowMs;
      if (now < resolveBy) return { state: { ...state, phase: 'resolving', resolveBy }, effects: [] };
      return { state: ended, effects: [{ kind: 'failRfq', quoteId, code: 'EXECUTION_UNCONFIRMED', reason: `outcome unknown: ${result.reason}` }] };
    }
  }
}

/**
 * A node found the execution in `takerSending` with no reply recorded (the sender crashed or lost
 * its lease): the order may have reached the venue, so it is resolved by cloid, never sent again.
 */
export function afterLostTakerSend(state: ExecutionState, now: number, resolveWindowMs: number): Transition {
  assertPhase(state, 'takerSending');
  return { state: { ...state, phase: 'resolving', resolveBy: now + resolveWindowMs }, effects: [] };
}

/** Step 7: the maker cancels were sent (or gave up on); the execution is over. */
export function afterCleanup(state: ExecutionState): Transition {
  assertPhase(state, 'cleanup');
  return { state: { ...state, phase: 'done' }, effects: [] };
}

/**
 * A transition's write was refused by the store for a reason that will not change (what it
 * carried cannot be stored): the execution ends instead of being retried forever. `reason` must
 * be text of ours, never anything the client or the venue sent. Before anything is sent
 * (`checking`) the accept is refused as any other check failure is (the quote FAILED, the RFQ
 * still PENDING, the other quotes free to be accepted). Once the RFQ is QUOTED it FAILED: the
 * taker's order not sent yet, `SETTLEMENT_FAILED`; maybe sent, `EXECUTION_UNCONFIRMED` (its
 * outcome can no longer be recorded); the maker orders sent get their cancels. In `cleanup` the
 * outcome is already committed: the execution is over.
 */
export function afterUnwritable(state: ExecutionState, reason: string): Transition {
  assertPhase(state, 'checking', 'makerSending', 'takerSending', 'resolving', 'cleanup');
  const quoteId = state.currentQuoteId;
  const ended = { ...state, phase: 'cleanup' as const, resolveBy: null, cascade: [] };
  switch (state.phase) {
    case 'checking':
      return afterChecks(state, { kind: 'refused', reason });
    case 'makerSending':
      return { state: ended, effects: [{ kind: 'failRfq', quoteId, code: 'SETTLEMENT_FAILED', reason }] };
    case 'cleanup':
      return { state: { ...state, phase: 'done' }, effects: [] };
    default:
      return { state: ended, effects: [{ kind: 'failRfq', quoteId, code: 'EXECUTION_UNCONFIRMED', reason }] };
  }
}

// ---- a perp SWEEP (DESIGN.md section 14): one maker order per leg, then one taker order ----------

function restingLegs(sweep: SweepExecution): SweepLegState[] {
  return sweep.legs.filter((l) => l.state === 'resting');
}

/** Steps 1-3 on a sweep: every leg SELECTED at its size, the backups kept, the first leg's maker order next. */
function afterSweepChecks(state: ExecutionState, sweep: SweepExecution, result: Extract<CheckResult, { kind: 'passed' }>): Transition {
  const backups = result.backups ?? [];
  const cascade = backups.map((b) => b.quoteId);
  const select: ExecutionEffect = { kind: 'select', quoteId: state.currentQuoteId, cascade, legs: sweep.legs.map(({ quoteId, baseQty, cut }) => ({ quoteId, baseQty, cut })) };
  if (result.rateTenthBp > 0 && (result.approvedFeeTenthBp ?? 0) < result.rateTenthBp) {
    return {
      state: { ...state, phase: 'done', cascade: [] },
      effects: [select, { kind: 'failRfq', quoteId: null, code: 'SETTLEMENT_FAILED', reason: 'builder fee approval below the rate' }],
    };
  }
  const first = sweep.legs[0]!.quoteId;
  return { state: { ...state, phase: 'makerSending', currentQuoteId: first, cascade, makerOrdersSent: [first], sweep: { ...sweep, backups } }, effects: [select] };
}

/**
 * Step 4 on a sweep, one leg at a time in rank order. Resting: the next pending leg's maker order.
 * Refused: the leg FAILED and its size refilled from the backups (refillSweepLeg), each promoted
 * backup a leg of its own behind the others. With no leg pending, the taker's order is next when
 * the resting legs reach `minFillQty`; else the RFQ FAILED `EXECUTION_NOT_FILLED`, the taker's
 * order never sent.
 */
function afterSweepMakerOrder(state: ExecutionState, sweep: SweepExecution, result: MakerOrderResult): Transition {
  const current = state.currentQuoteId;
  const effects: ExecutionEffect[] = [];
  let legs = sweep.legs.map((l) => (l.quoteId === current ? { ...l, state: result.kind === 'resting' ? ('resting' as const) : ('failed' as const) } : l));
  let backups = sweep.backups;
  let reason: string | null = null;
  if (result.kind === 'refused') {
    reason = result.reason;
    if (result.makerFault) effects.push({ kind: 'makerFailure', quoteId: current, reason: result.reason });
    effects.push({ kind: 'failWinner', quoteId: current });
    const leg = sweep.legs.find((l) => l.quoteId === current)!;
    const refill = refillSweepLeg(BigInt(leg.baseQty), backups, BigInt(sweep.baseStep));
    backups = refill.backups;
    const cascade = backups.map((b) => b.quoteId);
    for (const promoted of refill.promoted) effects.push({ kind: 'promote', quoteId: promoted.quoteId, cascade, leg: promoted });
    legs = [...legs, ...refill.promoted.map((p) => ({ ...p, state: 'pending' as const }))];
  }
  const cascade = backups.map((b) => b.quoteId);
  const next = legs.find((l) => l.state === 'pending');
  const nextSweep = { ...sweep, legs, backups };
  if (next !== undefined) {
    return { state: { ...state, currentQuoteId: next.quoteId, cascade, makerOrdersSent: [...state.makerOrdersSent, next.quoteId], sweep: nextSweep }, effects };
  }
  const resting = legs.filter((l) => l.state === 'resting').reduce((sum, l) => sum + BigInt(l.baseQty), 0n);
  if (resting > 0n && resting >= BigInt(sweep.minFillQty)) {
    return { state: { ...state, phase: 'takerSending', cascade, sweep: nextSweep }, effects };
  }
  effects.push({ kind: 'failRfq', quoteId: null, code: 'EXECUTION_NOT_FILLED', reason: `maker orders resting for ${resting} of the ${sweep.minFillQty} base units the sweep needs${reason ? `: ${reason}` : ''}` });
  return { state: { ...state, phase: 'cleanup', cascade: [], sweep: nextSweep }, effects };
}
