/**
 * Session lifetime (DESIGN.md section 11) on every node: each authenticated socket's credential
 * and maker standing are re-read from the store every `sessionAuditMs`, so a revocation or an
 * expiry ends the session (AUTH_REQUIRED, 4001) and a maker's deactivation or suspension takes
 * its maker subscriptions, within the 1 s bound, whichever node made the change. One statement per
 * round for all of this node's sessions; nothing is read while there are none.
 */
import type { Logger } from 'pino';
import type { Reader } from '../store/transaction.ts';
import { readCredentialStandings } from '../services/auth/credential-standing.ts';
import type { SessionHub } from './hub.ts';

export interface SessionAuditorDeps {
  db: Reader;
  hub: SessionHub;
  now: () => number;
  intervalMs: () => number;
  logger: Logger;
}

export class SessionAuditor {
  private readonly deps: SessionAuditorDeps;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(deps: SessionAuditorDeps) {
    this.deps = deps;
  }

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.audit()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'session audit failed (retried next round)'))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.deps.intervalMs());
    this.timer.unref();
  }

  /** One round: every authenticated session on this node against the store. */
  async audit(): Promise<void> {
    const sessions = [...this.deps.hub.audited];
    if (sessions.length === 0) return;
    const now = this.deps.now();
    const standings = await readCredentialStandings(this.deps.db, sessions.map((s) => s.accessKey), now);
    for (const session of sessions) {
      if (!this.deps.hub.audited.has(session)) continue;
      const standing = standings.get(session.accessKey);
      if (!standing) continue;
      if (standing.keyRefusal !== null) session.endForCredential(standing.keyRefusal);
      else if (standing.makerRefusal !== null) session.makerLost(standing.makerRefusal);
    }
  }
}
