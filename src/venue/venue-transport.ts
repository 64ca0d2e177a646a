/**
 * The venue SDK's `HttpTransport` with its POST sent by `postJson` (src/net/json-post.ts says why
 * not `fetch`) and a per-call timeout that is a plain timer. The contract is the SDK's own: the
 * parsed JSON body; `HttpRequestError` carrying the reply (status, headers, body) for a non-2xx or
 * non-JSON reply or a `{ type: "error" }` body; `HttpRequestError` with the cause for a request
 * that got no reply. The SDK's clients (`InfoClient`, `ExchangeClient`) take it as they take theirs.
 * With a budget, every request's weight is admitted by it first (VenueBudgetRefusedError, a
 * TransportError, when there is no room: nothing was sent), the item-priced replies' extra weight
 * is charged after, and a 429 reply stops the budget for the time it names.
 */
import { HttpRequestError, HttpTransport, TransportError, type HttpTransportOptions } from '@nktkas/hyperliquid';
import { postJson } from '../net/json-post.ts';
import { replyWeight, requestWeight, type VenuePriority } from '../domain/venue/request-weight.ts';
import { retryAfterMs, type VenueBudget } from './venue-budget.ts';

type Endpoint = 'info' | 'exchange' | 'explorer';

/** Requests the SDK's own clients send through `request` (set-up and tools, not the service's hot paths). */
const SDK_CALL_PRIORITY: VenuePriority = 2;

export interface VenueTransportOptions extends HttpTransportOptions {
  /** The weight budget every request goes through; none: nothing is counted. */
  budget?: VenueBudget | null;
}

export class VenueTransport extends HttpTransport {
  readonly budget: VenueBudget | null;

  constructor(options: VenueTransportOptions = {}) {
    const { budget, ...transport } = options;
    super(transport);
    this.budget = budget ?? null;
  }

  override request<T>(endpoint: Endpoint, payload: unknown, signal?: AbortSignal): Promise<T> {
    return this.post<T>(endpoint, payload, { signal: signal ?? null, priority: SDK_CALL_PRIORITY });
  }

  /** One request at `priority`; `timeoutMs` bounds it (the transport's `timeout` when absent, none when that is null). */
  async post<T>(endpoint: Endpoint, payload: unknown, options: { timeoutMs?: number; signal?: AbortSignal | null; priority: VenuePriority }): Promise<T> {
    this.budget?.admit(requestWeight(endpoint, payload), options.priority);
    try {
      const url = new URL(endpoint, endpoint === 'explorer' ? this.rpcUrl : this.apiUrl);
      const reply = await postJson(url, JSON.stringify(payload), { timeoutMs: options.timeoutMs ?? this.timeout, signal: options.signal ?? null });
      const response = () => new Response(reply.text, { status: reply.status, statusText: reply.statusText, headers: reply.headers });
      if (reply.status === 429) this.budget?.tooManyRequests(retryAfterMs(reply.headers.get('retry-after'), Date.now()));
      const ok = reply.status >= 200 && reply.status < 300;
      if (!ok || !reply.headers.get('content-type')?.includes('application/json')) throw new HttpRequestError({ response: response(), message: reply.text });
      const body = JSON.parse(reply.text) as { type?: unknown; message?: string } | null;
      if (body?.type === 'error') throw new HttpRequestError({ response: response(), message: body.message });
      this.budget?.charge(replyWeight(endpoint, payload, body), options.priority);
      return body as T;
    } catch (error) {
      if (error instanceof TransportError) throw error;
      throw new HttpRequestError(undefined, { cause: error });
    }
  }
}
