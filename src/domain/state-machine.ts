/**
 * The lookup every entity's state machine shares (RFQ, quote, withdrawal, deposit, /v0 order,
 * /v0 withdrawal, custody transfer, venue action): an event's rule names the status (or statuses)
 * it may start from and the refusal when the entity is elsewhere. The machines keep their own tables and
 * effects; this is only how a rule is found and how a refusal reads, so every machine refuses the
 * same way.
 */
import { ServiceError } from './errors.ts';
import type { ErrorCode } from './error-codes.ts';

export interface MachineRule<S extends string> {
  /** The status the event applies to, or each status it applies to. */
  from: S | readonly S[];
  refusal: ErrorCode;
}

const fromList = <S extends string>(rule: MachineRule<S>): readonly S[] => (typeof rule.from === 'string' ? [rule.from] : rule.from);

/**
 * The rule of `event` when `status` is one it applies to.
 * @throws ServiceError the rule's refusal, with `details.status`, `details.event` and `extra`.
 */
export function decideRule<S extends string, E extends string, R extends MachineRule<S>>(
  entity: string,
  rules: Readonly<Record<E, R>>,
  status: S,
  event: E,
  extra: (rule: R) => Record<string, unknown> = () => ({}),
): R {
  const rule = rules[event];
  const from = fromList(rule);
  if (!from.includes(status)) {
    throw new ServiceError(rule.refusal, `${entity} is ${status}; ${event} needs ${from.join(' or ')}`, { status, event, ...extra(rule) });
  }
  return rule;
}

/**
 * The statuses `event` applies to and the one it leads to, for a write that holds no row lock: it
 * is made as a compare-and-set on any of `from`, which leaves a row that moved on as it is.
 */
export function ruleTransition<S extends string, E extends string>(rules: Readonly<Record<E, MachineRule<S> & { to: S }>>, event: E): { from: readonly S[]; to: S } {
  const rule = rules[event];
  return { from: fromList(rule), to: rule.to };
}

/** Whether no event of `rules` leaves `status`. */
export function isTerminalIn<S extends string>(rules: Readonly<Record<string, MachineRule<S>>>, status: S): boolean {
  return !Object.values(rules).some((rule) => fromList(rule).includes(status));
}
