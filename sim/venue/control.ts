// A small typed client for the simulator's `/_sim/*` control surface, for tests and the embedded stack.
import type { FaultEffect, FaultMatch, FaultRule } from './faults.ts';

export type FundRequest = { user: string; account: 'perp' | 'spot'; token: string; amount: string };
export type BookRequest = {
  coin: string;
  mid?: string;
  levels?: number;
  halfSpreadBps?: number;
  stepBps?: number;
  levelNotionalUsd?: string;
  walk?: { stepBps: number; intervalMs: number } | null;
  /** false: no liquidity-account levels on this book. */
  enabled?: boolean;
  /** A profile with a moving book: false pins this book (no walk but its own, no other makers or takers), true lets it move again. */
  moving?: boolean;
};
export type ClockRequest = { setMs?: number; advanceMs?: number; freeze?: boolean };

export class VenueSimControlError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'VenueSimControlError';
    this.status = status;
  }
}

export class VenueSimControl {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  constructor(baseUrl: string, options: { timeoutMs?: number } = {}) {
    this.baseUrl = baseUrl.replace(/\/$/, '');
    this.timeoutMs = options.timeoutMs ?? 5_000;
  }

  private async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}/_sim/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) throw new VenueSimControlError(res.status, `/_sim/${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** Credits perp USDC margin or a spot token (decimal string, human units). */
  fund(request: FundRequest): Promise<Record<string, string>> {
    return this.call('POST', 'fund', request);
  }
  /** Sets a coin's mid, liquidity levels or walk; answers its l2Book. */
  book(request: BookRequest): Promise<{ coin: string; time: number; levels: [unknown[], unknown[]] }> {
    return this.call('POST', 'book', request);
  }
  clock(request?: ClockRequest): Promise<{ nowMs: number; frozen: boolean }> {
    return request === undefined ? this.call('GET', 'clock') : this.call('POST', 'clock', request);
  }
  state(): Promise<Record<string, unknown>> {
    return this.call('GET', 'state');
  }
  reset(): Promise<{ ok: true }> {
    return this.call('POST', 'reset', {});
  }
  /** Fills the signer's nonce set up to `upTo` (default: the sim's now), so anything signed earlier is refused. */
  burnNonces(signer: string, upTo?: number): Promise<{ signer: string; lowestKept: number; highestKept: number }> {
    return this.call('POST', 'nonces', upTo === undefined ? { signer } : { signer, upTo });
  }
  addFault(rule: { match?: FaultMatch; effect: FaultEffect; count?: number | null }): Promise<{ id: number }> {
    return this.call('POST', 'faults', rule);
  }
  faults(): Promise<FaultRule[]> {
    return this.call('GET', 'faults');
  }
  /** Clears one rule, or all of them. */
  clearFaults(id?: number): Promise<{ ok: true }> {
    return this.call('POST', 'faults/clear', id === undefined ? {} : { id });
  }
}
