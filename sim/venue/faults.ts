// Fault rules: a request matching a rule gets the rule's effect instead of (or besides) normal
// handling, `count` times (null: until cleared).

export type FaultEffect =
  /**
   * The action refused with `message` (`{ status: "err" }`). With `applied`, it is applied first,
   * as when the same signed bytes were already sent once: a duplicate nonce on an order placed.
   */
  | { type: 'reject'; message: string; applied?: boolean }
  | { type: 'http'; status: number }
  /** No reply: the request is held, then the connection dropped after holdMs; nothing applied. */
  | { type: 'timeoutBeforeApply'; holdMs?: number }
  /** Applied and persisted, then no reply (held, then dropped). */
  | { type: 'timeoutAfterApply'; holdMs?: number }
  /** No reply now (held, then dropped); applied delayMs later (also across a restart). */
  | { type: 'applyLater'; delayMs: number; holdMs?: number }
  /** An order fills at most this fraction (decimal string, e.g. "0.5") of its size; the rest as its tif says. */
  | { type: 'partialFill'; fraction: string }
  /** `orderStatus` answers `unknownOid`. */
  | { type: 'unknownOid' }
  /** `/info` drops the connection without an answer. */
  | { type: 'infoDown' }
  /** `/ws`: one push (a channel's message for one user) is not sent; the state still changes. */
  | { type: 'dropPush' };

export type FaultMatch = {
  endpoint?: 'info' | 'exchange' | 'ws';
  /** `/ws` subscription channel (`userFills`, `orderUpdates`, `userNonFundingLedgerUpdates`). */
  channel?: string;
  /** `/exchange` action type (`order`, `cancelByCloid`, `spotSend` ...). */
  action?: string;
  /** `/info` request type. */
  infoType?: string;
  /** The acting user, the signer, or the `/info` request's user. */
  user?: string;
  /** An order's `c`, a `cancelByCloid` cloid, or the `orderStatus` cloid. */
  cloid?: string;
};

export type FaultRule = { id: number; match: FaultMatch; effect: FaultEffect; count: number | null };

export type FaultSubject = {
  endpoint: 'info' | 'exchange' | 'ws';
  channel?: string;
  action?: string;
  infoType?: string;
  users: string[];
  cloids: string[];
};

const EFFECTS_BY_ENDPOINT: Record<FaultEffect['type'], Array<FaultSubject['endpoint']>> = {
  reject: ['exchange'],
  http: ['info', 'exchange'],
  timeoutBeforeApply: ['exchange', 'info'],
  timeoutAfterApply: ['exchange'],
  applyLater: ['exchange'],
  partialFill: ['exchange'],
  unknownOid: ['info'],
  infoDown: ['info'],
  dropPush: ['ws'],
};

export function ruleMatches(rule: FaultRule, subject: FaultSubject): boolean {
  const m = rule.match;
  if (!EFFECTS_BY_ENDPOINT[rule.effect.type].includes(subject.endpoint)) return false;
  if (m.endpoint !== undefined && m.endpoint !== subject.endpoint) return false;
  if (m.action !== undefined && m.action !== subject.action) return false;
  if (m.infoType !== undefined && m.infoType !== subject.infoType) return false;
  if (m.channel !== undefined && m.channel !== subject.channel) return false;
  if (m.user !== undefined && !subject.users.includes(m.user.toLowerCase())) return false;
  if (m.cloid !== undefined && !subject.cloids.includes(m.cloid.toLowerCase())) return false;
  if (rule.effect.type === 'unknownOid' && subject.infoType !== 'orderStatus') return false;
  return true;
}

/** The first matching rule of one of `types`, its count consumed; null when none. */
export function takeFault(
  rules: FaultRule[],
  subject: FaultSubject,
  types: FaultEffect['type'][],
): FaultRule | null {
  const i = rules.findIndex((r) => types.includes(r.effect.type) && ruleMatches(r, subject));
  if (i < 0) return null;
  const rule = rules[i]!;
  if (rule.count !== null) {
    rule.count -= 1;
    if (rule.count <= 0) rules.splice(i, 1);
  }
  return rule;
}

export function validateFault(input: unknown): { match: FaultMatch; effect: FaultEffect; count: number | null } | string {
  if (typeof input !== 'object' || input === null) return 'fault must be an object';
  const { match = {}, effect, count = 1 } = input as Record<string, unknown>;
  if (typeof match !== 'object' || match === null) return 'match must be an object';
  if (typeof effect !== 'object' || effect === null) return 'effect must be an object';
  const type = (effect as { type?: unknown }).type;
  if (typeof type !== 'string' || !(type in EFFECTS_BY_ENDPOINT)) return `unknown effect type ${String(type)}`;
  const e = effect as Record<string, unknown>;
  if (type === 'reject' && typeof e.message !== 'string') return 'reject needs a message';
  if (type === 'reject' && e.applied !== undefined && typeof e.applied !== 'boolean') return 'reject.applied must be a boolean';
  if (type === 'http' && (typeof e.status !== 'number' || e.status < 400 || e.status > 599)) return 'http needs a status 400..599';
  if (type === 'applyLater' && (typeof e.delayMs !== 'number' || e.delayMs < 0)) return 'applyLater needs delayMs';
  if (type === 'partialFill' && (typeof e.fraction !== 'string' || !/^0\.\d+$/.test(e.fraction))) {
    return 'partialFill needs a fraction like "0.5"';
  }
  if (count !== null && (typeof count !== 'number' || !Number.isInteger(count) || count < 1)) return 'count must be a positive integer or null';
  for (const k of ['user', 'cloid', 'channel']) {
    const v = (match as Record<string, unknown>)[k];
    if (v !== undefined && typeof v !== 'string') return `match.${k} must be a string`;
  }
  return { match: match as FaultMatch, effect: effect as FaultEffect, count: count as number | null };
}
