/**
 * The closed list of error codes this service emits, with the HTTP status each maps to.
 * The spec calls the set open (clients tolerate new codes); adding one here is additive.
 * `docs/errors.md` lists the same codes; a test keeps the two in sync.
 */
export const errorCodes = {
  INVALID_REQUEST: { status: 400, meaning: 'Body, query or path failed validation; details.errors lists each field.' },
  AMOUNT_OVER_PRECISE: { status: 400, meaning: 'More fractional digits than the token allows; details.maxDecimals.' },
  BELOW_MIN_NOTIONAL: { status: 400, meaning: 'BUY limit below minQuoteNotional plus fee; details.minQuoteNotional.' },
  PERP_AUTO_ACCEPT_UNSUPPORTED: { status: 400, meaning: 'autoAccept true on a perp instrument.' },
  PERP_ORDER_INVALID: { status: 400, meaning: "A perp quote's signed venue order or cancel is refused; details.errors lists each defect (field, reason, message)." },
  VENUE_COIN_NOT_FOUND: { status: 400, meaning: "Operator: a PERP instrument's base is not a coin in the venue's meta universe (exact name)." },
  INSTRUMENT_NOT_FOUND: { status: 400, meaning: 'No such instrument.' },
  INSTRUMENT_DISABLED: { status: 400, meaning: 'The instrument exists but is not enabled.' },
  TOKEN_NOT_FOUND: { status: 400, meaning: 'No such token.' },
  LEGS_MISMATCH: { status: 400, meaning: 'Quote legs do not match the RFQ instrument, side or quantity.' },
  SELF_QUOTE: { status: 400, meaning: 'A maker cannot quote on its own RFQ.' },
  XCHANGE_BUNDLE_INVALID: { status: 400, meaning: 'The xchange bundle does not match the quote; details.errors lists each field and reason.' },
  TOKEN_NOT_ON_CHAIN: { status: 400, meaning: 'A token has no on-chain address: a quote in this settlement mode could not settle (details.tokens), or it cannot be withdrawn.' },
  INSUFFICIENT_BALANCE: { status: 400, meaning: 'Available balance does not cover the amount to lock.' },
  UNAUTHENTICATED: { status: 401, meaning: 'Missing, unknown, expired or revoked credential, or missing auth headers.' },
  TIMESTAMP_OUT_OF_WINDOW: { status: 401, meaning: 'Service-API-Timestamp more than 30 s from the server clock; details.serverTime.' },
  TIMESTAMP_REUSED: { status: 401, meaning: 'This (access key, timestamp) pair was already accepted; details.serverTime.' },
  SIWE_INVALID: { status: 401, meaning: 'The sign-in message or its signature failed verification; details.reason.' },
  SIGNATURE_MISMATCH: { status: 403, meaning: 'Known access key, wrong request signature.' },
  MAKER_SCOPE_REQUIRED: { status: 403, meaning: 'The credential is not maker-scoped.' },
  MAKER_NOT_APPROVED: { status: 403, meaning: 'The maker is not approved for this pair or is inactive or suspended.' },
  FORBIDDEN: { status: 403, meaning: 'The object belongs to another account.' },
  ADMIN_UNAUTHORIZED: { status: 401, meaning: 'Missing or wrong operator bearer token.' },
  NOT_FOUND: { status: 404, meaning: 'No such route or object.' },
  QUOTE_VERSION_MISMATCH: { status: 409, meaning: 'expectedVersion differs from the quote version.' },
  QUOTE_NOT_ACCEPTABLE: { status: 409, meaning: 'Quote not SUBMITTED, outside the maker window, or outside quoteLimit.' },
  RFQ_NOT_PENDING: { status: 409, meaning: 'The RFQ is no longer PENDING.' },
  AUCTION_CLOSED: { status: 409, meaning: 'auctionEndsAt has passed.' },
  QUOTE_NOT_OPEN: { status: 409, meaning: 'Maker cancel of a quote that is no longer open.' },
  WITHDRAWAL_NOT_PENDING: { status: 409, meaning: 'Operator approve or reject of a withdrawal that is no longer PENDING.' },
  WITHDRAWAL_NOT_UNRESOLVED: { status: 409, meaning: 'Operator resolve of a withdrawal that is not UNRESOLVED.' },
  CUSTODY_TX_MINEABLE: { status: 409, meaning: 'Operator resolve while a signed custody transaction for the withdrawal can still be mined (its nonce is unused); cancel it first. details.nonce, details.txHashes.' },
  CUSTODY_TX_PAID: { status: 409, meaning: 'Operator resolve FAILED of a withdrawal whose custody transaction was mined and succeeded; details.txHash.' },
  CUSTODY_CHAIN_UNAVAILABLE: { status: 503, meaning: 'The chain could not be read to check an operator decision against it; nothing changed.' },
  CUSTODY_TRANSFER_NOT_CANCELLABLE: { status: 409, meaning: 'Operator cancel of a custody transfer that is not signed and unconfirmed (SIGNED or SENT); details.status.' },
  PAYOUT_NOT_OWED: { status: 409, meaning: 'Operator retry of a promised payout that is queued, in flight or paid (only one that ended REVERTED, CANCELLED or UNRESOLVED can be queued again); details.status.' },
  CONFLICT: { status: 409, meaning: 'The object is not in a state that allows this operation.' },
  MAKER_PROTECTION_TRIGGERED: { status: 409, meaning: "The maker's market-maker protection on this instrument tripped; no new quotes until POST /v1/rfq/maker/protection/reset. details.instrumentId, details.triggeredAt, details.reason." },
  TOO_MANY_OPEN_RFQS: { status: 409, meaning: 'The account already holds maxOpenRfqsPerAccount PENDING RFQs; details.maxOpenRfqsPerAccount.' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, meaning: 'The idempotencyKey was already used for a different request.' },
  RATE_LIMITED: { status: 429, meaning: 'Too many requests; Retry-After says when to retry.' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'Request body over the size limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'Body is not application/json.' },
  NOT_AVAILABLE: { status: 503, meaning: 'Feature not available in this deployment (e.g. devnet-only).' },
  VENUE_UNAVAILABLE: { status: 503, meaning: 'The perp venue did not answer in time or answered with an error; nothing was changed.' },
  AUTH_REQUIRED: { status: 401, meaning: 'WebSocket only: auth frame missing, late or refused, or a connection cap reached; the socket closes.' },
  UNSUPPORTED_CHANNEL: { status: 403, meaning: 'WebSocket only: a topic this session may not hold; the socket stays open.' },
  // Legacy /v0 (spec v0-legacy-interface.md, statuses from DESIGN.md section 10).
  INVALID_INPUT: { status: 400, meaning: '/v0 login with message or signature missing.' },
  INVALID_STATEMENT: { status: 400, meaning: '/v0 login whose SIWE statement is not exactly the required one.' },
  VALIDATION_ERROR: { status: 400, meaning: '/v0 missing or invalid request field (or unknown operation).' },
  INVALID_SIGNATURE: { status: 401, meaning: '/v0 login with a bad signature, domain, chain id, issuedAt, reused nonce or unapproved API wallet.' },
  UNAUTHORIZED: { status: 401, meaning: '/v0 missing, malformed, tampered or expired bearer token.' },
  USER_NOT_FOUND: { status: 404, meaning: '/v0 the authenticated identity has no account yet.' },
  ORDER_ERROR: { status: 422, meaning: '/v0 createOrder failed (insufficient balance, unknown market), or flat-layout cancelOrder failed.' },
  CANCELLATION_ERROR: { status: 422, meaning: '/v0 wrapped-layout cancelOrder of an unknown, foreign or non-cancellable order.' },
  SERVICE_UNAVAILABLE: { status: 503, meaning: '/v0 the venue cannot be reached now.' },
  INTERNAL_ERROR: { status: 500, meaning: '/v0 unexpected failure; nothing internal is revealed.' },
  INTERNAL: { status: 500, meaning: 'Internal server error; nothing internal is revealed.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof errorCodes;

export function httpStatusOf(code: ErrorCode): number {
  return errorCodes[code].status;
}
