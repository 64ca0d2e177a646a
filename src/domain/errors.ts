/**
 * The one error type the service raises for expected failures. `code` is stable and listed in
 * `error-codes.ts`; the HTTP status and WebSocket frame are derived from it in one place
 * (`src/api/error-map.ts`), never at the raise site.
 */
import type { ErrorCode } from './error-codes.ts';

export interface FieldError {
  /** Dot/bracket path into the request, e.g. `makerPays.amount` or `bids[2][0]`. */
  field: string;
  /** Stable machine reason, e.g. `required`, `format`, `pattern`. */
  reason: string;
  message: string;
}

export type ErrorDetails = Record<string, unknown>;

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ServiceError';
    this.code = code;
    this.details = details;
  }
}

/** 400 INVALID_REQUEST with one or more field errors. */
export function invalidRequest(errors: FieldError[], message = 'request failed validation'): ServiceError {
  return new ServiceError('INVALID_REQUEST', message, { errors });
}

export function invalidField(field: string, reason: string, message: string): ServiceError {
  return invalidRequest([{ field, reason, message }], message);
}
