/**
 * This node's part in cancel on disconnect (DESIGN.md section 11): it registers each maker
 * session in the store (saying whether it asked for cancel on disconnect), ends it when the
 * socket goes, beats the node's heartbeat every fifth of the timeout, and sweeps every
 * SWEEP_INTERVAL_MS (at once after a local session ends) for makers whose last flagged session
 * ended anywhere, a dead node's included (services/protection/maker-sessions.ts). The same round
 * cancels the open quotes of makers whose market-maker protection tripped (protection-sweep.ts),
 * so both cancels run on every node and neither waits for a particular one.
 *
 * Writes go through one queue, so a session's end is never overtaken by its registration or by a
 * heartbeat that still listed it.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ServiceDeps } from '../services/deps.ts';
import { sweepTrippedProtections } from '../services/protection/protection-sweep.ts';
import { rearmFrozenProtections } from '../services/protection/protection-settings.ts';
import { sweepDeadMansSwitches } from '../services/protection/dead-mans-switch.ts';
import { endMakerSessions, heartbeat, leaveNode, openMakerSession, sweepDisconnectedMakers, type MakerSession } from '../services/protection/maker-sessions.ts';
import { noteServiceStart } from '../services/settlement/service-outages.ts';

/** Sweep cadence: a disconnect elsewhere is acted on within this plus the cancels (2 s bound). */
const SWEEP_INTERVAL_MS = 250;

export interface PresenceDeps {
  service: ServiceDeps;
  /** Read on every use, so a replaced setting applies at the next beat. */
  heartbeatTimeoutMs: () => number;
  logger: Logger;
}

/** A fifth of the timeout: a node misses four beats before the others take it for dead. */
const beatIntervalMs = (deps: PresenceDeps) => Math.max(50, Math.floor(deps.heartbeatTimeoutMs() / 5));

export class SessionPresence {
  readonly nodeId: string;
  private readonly sessions = new Map<string, MakerSession>();
  private queue: Promise<void> = Promise.resolve();
  private deps: PresenceDeps | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;
  private stopped = false;

  constructor(nodeId: string) {
    this.nodeId = nodeId;
  }

  /**
   * Beats once before returning, so sessions accepted afterwards belong to a live node; first it
   * records the outage this start ends, if no node beat for two beat intervals (service-outages.ts).
   */
  async start(deps: PresenceDeps): Promise<void> {
    this.deps = deps;
    await this.enqueue(async () => {
      const outage = await deps.service.db.transaction().execute((tx) => noteServiceStart(tx, deps.service.clock.now(), 2 * beatIntervalMs(deps)));
      if (outage) deps.logger.warn({ outage }, `no node of the service was alive for ${outage.endedAt - outage.startedAt} ms: permit2 settlements whose window overlapped that are not counted against their makers`);
      await this.beat();
    });
    const scheduleBeat = () => {
      this.heartbeatTimer = setTimeout(() => {
        void this.enqueue(() => this.beat()).finally(() => {
          if (!this.stopped) scheduleBeat();
        });
      }, beatIntervalMs(deps));
      this.heartbeatTimer.unref();
    };
    scheduleBeat();
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.heartbeatTimer = null;
    this.sweepTimer = null;
    const deps = this.deps;
    if (!deps) return;
    this.sessions.clear();
    await this.enqueue(() => leaveNode(deps.service.db, this.nodeId, deps.service.clock.now()));
    // The sessions this node just ended are settled now rather than by the next node to sweep.
    this.sweep();
    await this.sweeping;
  }

  /** Registers a maker session; resolves once the store holds it. */
  async open(makerAccountId: string, cancelOnDisconnect: boolean): Promise<string> {
    const deps = this.required();
    const session: MakerSession = { sessionId: randomUUID(), makerAccountId, cancelOnDisconnect, openedAt: deps.service.clock.now() };
    this.sessions.set(session.sessionId, session);
    await this.enqueue(() => openMakerSession(deps.service.db, this.nodeId, session), true);
    return session.sessionId;
  }

  /** The session's socket is gone (either side closed it, or it missed its keepalives). */
  end(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    const deps = this.required();
    void this.enqueue(() => endMakerSessions(deps.service.db, [sessionId], deps.service.clock.now())).then(() => {
      if (session.cancelOnDisconnect) this.sweep();
    });
  }

  /**
   * Resolves once the writes queued before the call (a session's end, a beat) are done and a
   * sweep begun after them has ended: a cancel, a trip's cancels or a dead man's switch due by
   * then has had its chance. Tests wait on it to show that one does not happen.
   */
  async afterSweep(): Promise<void> {
    await this.queue;
    // A sweep running now may have read before the writes: the next one is ours.
    while (this.sweeping) await this.sweeping;
    this.sweep();
    await this.sweeping;
  }

  /** One sweep at a time; a request during one runs another right after it. */
  sweep(): void {
    const deps = this.deps;
    if (!deps) return;
    if (this.sweeping) {
      this.sweepAgain = true;
      return;
    }
    this.sweeping = sweepDisconnectedMakers(deps.service, deps.heartbeatTimeoutMs())
      .then(() => sweepTrippedProtections(deps.service))
      .then(() => sweepDeadMansSwitches(deps.service))
      .then(() => rearmFrozenProtections(deps.service))
      .then(() => undefined)
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'maker protection sweep failed (retried next round)'))
      .finally(() => {
        this.sweeping = null;
        if (this.sweepAgain && !this.stopped) {
          this.sweepAgain = false;
          this.sweep();
        }
      });
  }

  private beat(): Promise<void> {
    const deps = this.required();
    return heartbeat(deps.service.db, this.nodeId, [...this.sessions.values()], deps.service.clock.now());
  }

  private required(): PresenceDeps {
    if (!this.deps) throw new Error('session presence used before start');
    return this.deps;
  }

  /** Runs `write` after every earlier one; failures are logged, or rethrown to the caller when `rethrow`. */
  private enqueue(write: () => Promise<void>, rethrow = false): Promise<void> {
    const run = this.queue.then(write);
    this.queue = run.catch((error: unknown) => {
      if (!rethrow) this.deps?.logger.warn({ err: error }, 'session presence write failed');
    });
    return rethrow ? run : this.queue;
  }
}
