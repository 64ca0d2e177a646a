/**
 * JSON POSTs over `node:http(s)` with keep-alive agents: the transport of the service's own
 * outbound clients (the chain's JSON-RPC through viem, the venue's `info` and `exchange`), which
 * poll all the time, idle or not.
 *
 * Why not the global `fetch`: every fetch registers its response body, and its request's abort
 * controller, in FinalizationRegistry/WeakRef bookkeeping that only a full GC clears. The
 * young-generation GC keeps what they reach alive, so each response's web streams, buffers and
 * promises survive the scavenge and are promoted, and so is whatever young object they point to.
 * Measured on a bare loop of viem requests: 19% of the allocation survived each scavenge with
 * `fetch`, 3% with this (docs/decisions/0043-store-and-dependencies.md). For the same reason no timeout here is
 * an `AbortSignal.timeout` (a weakly held timer): a plain timer destroys the request.
 *
 * No `accept-encoding` is sent, so replies come uncompressed (nothing here decompresses). A POST
 * is never retried here: on a kept-alive connection the peer closed meanwhile it fails, as with
 * fetch, and the caller's own rules decide (viem retries reads; a venue order's outcome is then
 * unknown and resolved by its cloid).
 */
import http from 'node:http';
import https from 'node:https';

export interface JsonPostOptions {
  headers?: Record<string, string>;
  /** The whole exchange (connect, send, the full reply) is bounded by this; none when absent. */
  timeoutMs?: number | null;
  /** Cancels the request (as fetch's `signal` does). */
  signal?: AbortSignal | null;
  /** A reply longer than this is refused (default 16 MiB). */
  maxBytes?: number;
}

export interface JsonPostReply {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

export class JsonPostError extends Error {
  override readonly name = 'JsonPostError';
}

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
// Keep-alive: a polling client (the chain's, every 250 ms) reuses its connections. An idle one is
// closed after a second, well before any server's own keep-alive timeout (Node's is 5 s): a request
// sent on a connection the server is closing at that moment fails (ECONNRESET), and a venue read
// failing so refuses a perp accept (seen once in CI with the agent's default, the server's hint
// less one second, on a slow machine).
const FREE_SOCKET_MS = 1000;
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: FREE_SOCKET_MS }),
  'https:': new https.Agent({ keepAlive: true, timeout: FREE_SOCKET_MS }),
};

export function postJson(url: string | URL, body: string, options: JsonPostOptions = {}): Promise<JsonPostReply> {
  const target = typeof url === 'string' ? new URL(url) : url;
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new JsonPostError(`unsupported protocol ${target.protocol}`));
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return new Promise((resolve, reject) => {
    const signal = options.signal ?? null;
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new JsonPostError('aborted'));
    const secure = target.protocol === 'https:';
    const request = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? agents['https:'] : agents['http:'],
      headers: { 'content-type': 'application/json', ...options.headers, 'content-length': Buffer.byteLength(body) },
    });
    let timer: NodeJS.Timeout | null = null;
    // Once the reply has begun, it is the reply that is destroyed (its 'error' is listened to; a
    // request destroyed then emits its error where nothing listens).
    let inFlight: { destroy(error: Error): void } = request;
    const onAbort = () => inFlight.destroy(signal?.reason instanceof Error ? signal.reason : new JsonPostError('aborted'));
    const done = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (error: Error) => {
      done();
      reject(error);
    };
    if (options.timeoutMs != null) {
      const ms = options.timeoutMs;
      timer = setTimeout(() => inFlight.destroy(new JsonPostError(`no complete reply within ${ms} ms`)), ms);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', fail);
    request.on('response', (response) => {
      inFlight = response;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) response.destroy(new JsonPostError(`reply larger than ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      let ended = false;
      response.on('error', fail);
      // Closed before its end (the peer hung up, or a destroy above): a failure, never a short body.
      response.on('close', () => ended || fail(new JsonPostError('the reply was cut off')));
      response.on('end', () => {
        ended = true;
        done();
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
        }
        resolve({ status: response.statusCode ?? 0, statusText: response.statusMessage ?? '', headers, text: Buffer.concat(chunks, size).toString('utf8') });
      });
    });
    request.end(body);
  });
}

/**
 * `postJson` in the shape of `fetch`, for libraries that take a fetch function (viem's `fetchFn`):
 * POST with a string body only, which is all a JSON-RPC transport sends.
 */
export async function postJsonFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  if (input instanceof Request) throw new JsonPostError('postJsonFetch takes a URL, not a Request');
  if ((init.method ?? 'POST').toUpperCase() !== 'POST' || typeof init.body !== 'string') throw new JsonPostError('postJsonFetch sends a POST with a string body only');
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  const reply = await postJson(input, init.body, { headers, signal: init.signal ?? null });
  const bodyless = reply.status === 204 || reply.status === 205 || reply.status === 304;
  return new Response(bodyless ? null : reply.text, { status: reply.status, statusText: reply.statusText, headers: reply.headers });
}
