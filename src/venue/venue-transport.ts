/**
 * The venue SDK's `HttpTransport` with its POST sent by `postJson` (src/net/json-post.ts says why
 * not `fetch`) and a per-call timeout that is a plain timer. The contract is the SDK's own: the
 * parsed JSON body; `HttpRequestError` carrying the reply (status, headers, body) for a non-2xx or
 * non-JSON reply or a `{ type: "error" }` body; `HttpRequestError` with the cause for a request
 * that got no reply. The SDK's clients (`InfoClient`, `ExchangeClient`) take it as they take theirs.
 */
import { HttpRequestError, HttpTransport, TransportError } from '@nktkas/hyperliquid';
import { postJson } from '../net/json-post.ts';

type Endpoint = 'info' | 'exchange' | 'explorer';

export class VenueTransport extends HttpTransport {
  override request<T>(endpoint: Endpoint, payload: unknown, signal?: AbortSignal): Promise<T> {
    return this.post<T>(endpoint, payload, { signal: signal ?? null });
  }

  /** One request; `timeoutMs` bounds it (the transport's `timeout` when absent, none when that is null). */
  async post<T>(endpoint: Endpoint, payload: unknown, options: { timeoutMs?: number; signal?: AbortSignal | null } = {}): Promise<T> {
    try {
      const url = new URL(endpoint, endpoint === 'explorer' ? this.rpcUrl : this.apiUrl);
      const reply = await postJson(url, JSON.stringify(payload), { timeoutMs: options.timeoutMs ?? this.timeout, signal: options.signal ?? null });
      const response = () => new Response(reply.text, { status: reply.status, statusText: reply.statusText, headers: reply.headers });
      const ok = reply.status >= 200 && reply.status < 300;
      if (!ok || !reply.headers.get('content-type')?.includes('application/json')) throw new HttpRequestError({ response: response(), message: reply.text });
      const body = JSON.parse(reply.text) as { type?: unknown; message?: string } | null;
      if (body?.type === 'error') throw new HttpRequestError({ response: response(), message: body.message });
      return body as T;
    } catch (error) {
      if (error instanceof TransportError) throw error;
      throw new HttpRequestError(undefined, { cause: error });
    }
  }
}
