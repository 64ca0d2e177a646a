// The only way the console talks to the node: /admin/v1 with the operator token, kept in this
// tab's session storage (gone when the tab closes). Every failure becomes an ApiError carrying
// the API's code and message, so the page can always show what went wrong.

const TOKEN_KEY = 'rfq-operator-token';
const TIMEOUT_MS = 15000;

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
  /** The node did not answer at all (restarting, network down). */
  get unreachable() {
    return this.status === 0;
  }
}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** Listeners told after every call whether the node answered (drives the connection banner). */
const reachability = new Set();
export function onReachability(listener) {
  reachability.add(listener);
  return () => reachability.delete(listener);
}
const report = (reachable) => reachability.forEach((listener) => listener(reachable));

function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** `call('GET', '/rfqs', { query: { status: 'PENDING' } })`; resolves with the parsed JSON body. */
export async function call(method, path, { body, params, bearer } = {}) {
  const headers = { authorization: `Bearer ${bearer ?? token.get() ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(`/admin/v1${path}${query(params)}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      cache: 'no-store',
    });
  } catch (cause) {
    report(false);
    throw new ApiError(0, 'UNREACHABLE', `the node did not answer (${cause?.name ?? 'network error'})`);
  }
  report(true);
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // a proxy's HTML error page, say: fall through with what we have
  }
  if (!response.ok) {
    const error = parsed?.error;
    throw new ApiError(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? (text.slice(0, 200) || response.statusText), error?.details);
  }
  return parsed;
}
