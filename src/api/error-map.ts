/**
 * The one place errors become HTTP responses: ServiceError by its code's status; Fastify's
 * validation, parsing and size errors as INVALID_REQUEST / 413 / 415; anything else a bare 500
 * that reveals nothing (the cause is logged with the request id).
 */
import type { FastifyError } from 'fastify';
import type { Static } from 'typebox';
import { ServiceError, type FieldError } from '../domain/errors.ts';
import { httpStatusOf, type ErrorCode } from '../domain/error-codes.ts';
import { fieldErrorsFromAjv } from './validation.ts';
import type { ErrorEnvelope as ErrorEnvelopeSchema } from './schemas/common.ts';

/** The body of every error reply: the type of the schema each route declares for its error statuses. */
export type ErrorEnvelope = Static<typeof ErrorEnvelopeSchema>;

export interface MappedError {
  status: number;
  body: ErrorEnvelope;
  /** True when the failure is ours (logged at error level). */
  internal: boolean;
}

function envelope(code: ErrorCode, message: string, details?: Record<string, unknown>): MappedError {
  return { status: httpStatusOf(code), body: { error: { code, message, ...(details ? { details } : {}) } }, internal: code === 'INTERNAL' };
}

export function mapError(error: unknown): MappedError {
  if (error instanceof ServiceError) return envelope(error.code, error.message, error.details);
  const fastifyError = error as FastifyError;
  if (Array.isArray(fastifyError.validation)) {
    const context = fastifyError.validationContext ?? 'body';
    const errors: FieldError[] = fieldErrorsFromAjv(fastifyError.validation, context === 'body' ? '' : context);
    return envelope('INVALID_REQUEST', `${context} failed validation`, { errors });
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return envelope('INVALID_REQUEST', 'body is not valid JSON', { errors: [{ field: '(body)', reason: 'json', message: 'body is not valid JSON' }] });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return envelope('PAYLOAD_TOO_LARGE', 'request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return envelope('UNSUPPORTED_MEDIA_TYPE', 'body must be application/json');
    default:
      break;
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return envelope('INVALID_REQUEST', 'request is malformed', { errors: [{ field: '(request)', reason: 'malformed', message: 'request is malformed' }] });
  }
  return envelope('INTERNAL', 'internal server error');
}
