/**
 * Answers the requests Fastify refuses before any route or hook runs, in the service's error
 * envelope rather than Fastify's own body: a path parameter over the router's length limit or a
 * malformed URL (`frameworkErrors`), and a request line plus headers over Node's 16 KiB limit or
 * a request that is not HTTP (`clientError`).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, invalidField } from '../domain/errors.ts';
import { mapError } from './error-map.ts';

function pathRefusal(error: FastifyError) {
  return error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? invalidField('(path)', 'tooLong', 'a path segment is longer than any identifier this service uses')
    : invalidField('(path)', 'malformed', 'the path is not a valid URL');
}

/** Fastify's `frameworkErrors`: an over-long path segment or a bad URL becomes 400 INVALID_REQUEST. */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const mapped = mapError(pathRefusal(error));
  void reply.status(mapped.status).send(mapped.body);
}

/**
 * The HTTP server's `clientError`: what Node refuses while parsing, or a request that outlived
 * the request timeout (408 REQUEST_TIMEOUT). The connection is closed after the answer.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? new ServiceError('REQUEST_TIMEOUT', 'the request did not arrive in time')
    : error.code === 'HPE_HEADER_OVERFLOW'
      ? invalidField('(request)', 'tooLong', 'the request line and headers exceed 16 KiB')
      : invalidField('(request)', 'malformed', 'the request is not valid HTTP/1.1');
  const { status, body } = mapError(refusal);
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  }
  socket.destroy();
}
