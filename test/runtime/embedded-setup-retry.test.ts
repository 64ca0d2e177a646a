/**
 * Once `npm start` serves, a failure of the embedded demo set-up must not end
 * the process. It reports the failure, retries with back-off, answers `/readyz` 503 with the
 * reason meanwhile, and prints its "ready" banner only once the set-up is done.
 *
 * The failure is a real one: the demo taker's key file in the data directory holds no key, so
 * every set-up attempt fails; the test then removes the file (the next attempt generates a key)
 * and the same process becomes ready. Demo makers are off (RFQ_DEMO_MAKERS=0): the taker's set-up
 * is the part that fails, and the start stays short.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, freePort, NODE } from '../helpers/embedded-node.ts';
import { waitFor } from '../helpers/eventually.ts';

let child: ChildProcess | null = null;
let dataDir = '';

after(async () => {
  if (child?.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function until<T>(what: string, probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, output: () => string, timeoutMs = 180_000): Promise<T> {
  try {
    return (await waitFor(probe, what, { timeoutMs, pollMs: 200 })) as T;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${output()}`);
  }
}

describe('npm start when the embedded demo set-up fails', { timeout: 6 * 60_000 }, () => {
  it('keeps serving, says not ready with the reason, retries, and prints ready only once the set-up is done', async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'rfq-setup-retry-'));
    const keyFile = path.join(dataDir, 'demo-taker-key');
    await writeFile(keyFile, 'not-a-private-key\n', { mode: 0o600 });
    const port = await freePort();
    const started = spawn(NODE, ['src/runtime/main.ts'], { env: cleanEnv({ RFQ_DATA_DIR: dataDir, PORT: String(port), RFQ_DEMO_MAKERS: '0' }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child = started;
    let output = '';
    started.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let exit: number | string | null = null;
    started.once('exit', (code, signal) => (exit = code ?? signal));
    const log = () => output;

    const url = (await until('listening', () => /listening on (http:\/\/\S+)/.exec(output)?.[1], log))!;
    await until('the set-up failed and is retried', () => /the demo makers and taker set-up failed \(attempt 2\), retrying in 2 s/.test(output), log);
    const waiting = await fetch(`${url}/readyz`);
    const body = (await waiting.json()) as { status: string; reasons?: string[] };
    assert.equal(waiting.status, 503);
    assert.equal(body.status, 'not ready');
    assert.match(body.reasons?.join(' | ') ?? '', /demo makers and taker set-up failed \(attempt \d+\), retrying/);
    assert.equal(exit, null, `still running:\n${output}`);
    assert.doesNotMatch(output, /rfq-service ready/, 'no ready banner while the set-up fails');
    // It serves meanwhile: the API answers.
    assert.equal((await fetch(`${url}/v1/time`)).status, 200);

    // The cause removed: a later attempt of the same process succeeds.
    await rm(keyFile);
    await until('the ready banner', () => /rfq-service ready/.test(output), log);
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    assert.equal(exit, null);
    assert.match(output, /demo taker 0x[0-9a-fA-F]{40}: deposited/);

    const exited = new Promise((resolve) => started.once('exit', resolve));
    process.kill(started.pid!, 'SIGTERM');
    await exited;
  });
});
