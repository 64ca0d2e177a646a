/**
 * The node-local registry of authenticated sessions, keyed by account, that the outbox
 * dispatcher delivers into. One hub per ApiContext: the route plugin and the worker both reach
 * it through `hubFor(context)`, so neither the context type nor the wiring has to change.
 */
import type { ApiContext } from '../api/context.ts';

/** What the hub needs from a session: a way to hand it one committed account-topic frame. */
export interface HubSession {
  readonly accountId: string;
  deliver(topic: string, frame: Record<string, unknown>): void;
}

export class SessionHub {
  private readonly byAccount = new Map<string, Set<HubSession>>();
  /** openRfqs subscribers by instrumentId (broadcast rows are routed by the frame's instrumentId). */
  private readonly openRfqsByInstrument = new Map<string, Set<HubSession>>();

  add(session: HubSession): void {
    let set = this.byAccount.get(session.accountId);
    if (!set) this.byAccount.set(session.accountId, (set = new Set()));
    set.add(session);
  }

  remove(session: HubSession): void {
    const set = this.byAccount.get(session.accountId);
    if (!set) return;
    set.delete(session);
    // Drop empty sets so a long-lived node does not keep one entry per account ever seen.
    if (set.size === 0) this.byAccount.delete(session.accountId);
    for (const instrumentId of [...this.openRfqsByInstrument.keys()]) this.unwatchOpenRfqs(session, instrumentId);
  }

  watchOpenRfqs(session: HubSession, instrumentId: string): void {
    let set = this.openRfqsByInstrument.get(instrumentId);
    if (!set) this.openRfqsByInstrument.set(instrumentId, (set = new Set()));
    set.add(session);
  }

  unwatchOpenRfqs(session: HubSession, instrumentId: string): void {
    const set = this.openRfqsByInstrument.get(instrumentId);
    if (!set) return;
    set.delete(session);
    if (set.size === 0) this.openRfqsByInstrument.delete(instrumentId);
  }

  /** Instruments with at least one openRfqs subscriber on this node. */
  openRfqsInstruments(): string[] {
    return [...this.openRfqsByInstrument.keys()];
  }

  /** A broadcast `openRfqs` frame to every session holding that instrument's subscription. */
  deliverOpenRfq(instrumentId: string, frame: Record<string, unknown>): void {
    const set = this.openRfqsByInstrument.get(instrumentId);
    if (!set) return;
    for (const session of set) session.deliver('openRfqs', frame);
  }

  /** Sessions filter by their own subscriptions; the hub only routes by account. */
  deliver(accountId: string, topic: string, frame: Record<string, unknown>): void {
    const set = this.byAccount.get(accountId);
    if (!set) return;
    for (const session of set) session.deliver(topic, frame);
  }

  /** Accounts with at least one session on this node. */
  accounts(): string[] {
    return [...this.byAccount.keys()];
  }

  sessionCount(): number {
    let n = 0;
    for (const set of this.byAccount.values()) n += set.size;
    return n;
  }
}

const hubs = new WeakMap<ApiContext, SessionHub>();

export function hubFor(context: ApiContext): SessionHub {
  let hub = hubs.get(context);
  if (!hub) hubs.set(context, (hub = new SessionHub()));
  return hub;
}
