/**
 * Minimal typed HTTP transport for the client: JSON in and out, HMAC signing per DESIGN.md
 * section 4, and the error envelope raised as `ApiError` with the stable code.
 */
import { canonicalString, signCanonical } from '../domain/auth/hmac.ts';

export interface Credentials {
  accessKey: string;
  secret: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Headers;

  constructor(status: number, code: string, message: string, details: Record<string, unknown> | undefined, headers: Headers) {
    super(`${status} ${code}: ${message}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | string[] | undefined>;
  body?: unknown;
  /** Send this exact text as the body (for tests of malformed input). */
  rawBody?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export function encodeQuery(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else params.append(key, String(value));
  }
  return params.toString();
}

/** Issues strictly increasing millisecond timestamps, as the spec requires per access key. */
export class TimestampSource {
  #last = 0;
  next(): number {
    const now = Date.now();
    this.#last = now > this.#last ? now : this.#last + 1;
    return this.#last;
  }
}

export interface SignedHeaders {
  authorization: string;
  'service-api-timestamp': string;
  'service-api-signature': string;
}

export function signRequest(credentials: Credentials, timestamp: number, method: string, path: string, query: string, body: string): SignedHeaders {
  const canonical = canonicalString({ timestamp: String(timestamp), method, path, query, body });
  return {
    authorization: `Bearer ${credentials.accessKey}`,
    'service-api-timestamp': String(timestamp),
    'service-api-signature': signCanonical(credentials.secret, canonical),
  };
}

export class HttpTransport {
  readonly baseUrl: string;
  /** Shared with WebSocket sessions on the same credential: (key, timestamp) pairs are single use across both. */
  readonly timestamps = new TimestampSource();

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/$/, '');
  }

  async send<T>(method: string, path: string, options: RequestOptions & { credentials?: Credentials | undefined; bearer?: string } = {}): Promise<T> {
    const query = encodeQuery(options.query);
    const body = options.rawBody ?? (options.body === undefined ? '' : JSON.stringify(options.body));
    const headers: Record<string, string> = { ...(body !== '' ? { 'content-type': 'application/json' } : {}) };
    if (options.credentials) Object.assign(headers, signRequest(options.credentials, this.timestamps.next(), method, path, query, body));
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    Object.assign(headers, options.headers ?? {});
    const response = await fetch(`${this.baseUrl}${path}${query ? `?${query}` : ''}`, {
      method,
      headers,
      ...(body !== '' ? { body } : {}),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    const parsed: unknown = text.length > 0 && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
    if (!response.ok) {
      const envelope = (parsed as { error?: { code?: string; message?: string; details?: Record<string, unknown> } }).error;
      throw new ApiError(response.status, envelope?.code ?? 'UNKNOWN', envelope?.message ?? text, envelope?.details, response.headers);
    }
    return parsed as T;
  }
}
