/**
 * Raw venue requests through the SDK's `HttpTransport` (as `VenueTransport`), each with its own
 * timeout. A request that gets no answer (connection refused, timeout, 5xx) is
 * VenueUnavailableError: its outcome is unknown. Any answer, including the venue's `{ status:
 * "err" }` refusals, is returned as it is. Every request goes through the node's weight budget at
 * the priority its call site names; one the budget refuses was not sent (VenueUnavailableError,
 * so a send stays stored for a later pass).
 */
import { HttpRequestError } from '@nktkas/hyperliquid';
import { VenueTransport } from '../venue-transport.ts';
import type { VenueBudget } from '../venue-budget.ts';
import type { VenuePriority } from '../../domain/venue/request-weight.ts';
import { VenueUnavailableError } from '../../services/v0/venue-port.ts';

export class VenueHttp {
  readonly #transport: VenueTransport;
  readonly url: string;

  constructor(url: string, budget: VenueBudget | null = null) {
    this.url = url;
    this.#transport = new VenueTransport({ apiUrl: url, timeout: null, budget });
  }

  async info<T>(payload: Record<string, unknown>, timeoutMs: number, priority: VenuePriority): Promise<T> {
    try {
      return await this.#transport.post<T>('info', payload, { timeoutMs, priority });
    } catch (error) {
      throw new VenueUnavailableError(`venue info ${String(payload.type)} failed: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Sends a signed `/exchange` body. @throws VenueUnavailableError when no answer came back */
  async exchange(body: unknown, timeoutMs: number, priority: VenuePriority = 1): Promise<VenueExchangeReply> {
    try {
      return await this.#transport.post<VenueExchangeReply>('exchange', body, { timeoutMs, priority });
    } catch (error) {
      const status = error instanceof HttpRequestError ? error.response?.status : undefined;
      // A 4xx is an answer: the venue read the request and refused it.
      if (status !== undefined && status >= 400 && status < 500) return { status: 'err', response: error instanceof Error ? error.message : `HTTP ${status}` };
      throw new VenueUnavailableError(`venue exchange failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

export type VenueExchangeReply =
  | { status: 'ok'; response: { type: string; data?: { statuses: unknown[] } } }
  | { status: 'err'; response: string };

/** The first status of an `order`/`cancel` reply, or the whole refusal as an error. */
export function firstStatus(reply: VenueExchangeReply): unknown {
  if (reply.status === 'err') return { error: String(reply.response) };
  return reply.response.data?.statuses?.[0] ?? { error: 'the venue answered without a status' };
}
