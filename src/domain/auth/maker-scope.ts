/**
 * Why a credential is not maker-scoped, and what to do: a key is maker-scoped only if its account
 * was an active maker when the key was issued (issue-api-key.ts), so a maker registered after
 * signing in holds a taker's key until it signs in again. One text for REST and WebSocket.
 */
export const MAKER_SCOPE_HINT =
  'this needs a maker-scoped credential: a key is maker-scoped only if the account was an active maker when the key was issued; if you were registered as a maker after signing in, sign in again for a new key';
