/** Awaits a client call that must fail with this HTTP status and error code; returns the error. */
import assert from 'node:assert/strict';
import { ApiError } from '../../src/client/http.ts';

export async function rejects(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected ApiError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.equal(error.status, status, error.message);
    return error;
  }
  assert.fail(`expected ${status} ${code}`);
}
