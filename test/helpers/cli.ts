/**
 * Runs a CLI of `src/runtime/` as a child process (Node 24 from node_modules) with a clean
 * environment, so nothing inherited names a URL or a key; and asserts on its exit and output.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RfqClient } from '../../src/client/rfq-client.ts';
import type { OpenRfq } from '../../src/client/types.ts';
import { waitFor } from './eventually.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');

export interface Run { code: number | null; stdout: string; stderr: string }

/** `script` relative to the repository root; `cwd` is also HOME. */
export function runCli(script: string, args: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(NODE, [path.join(ROOT, script), ...args], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

export function exited(run: Run, code: number): Run {
  assert.equal(run.code, code, `exit ${code} expected, got ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run;
}

export function json(run: Run): any {
  return JSON.parse(run.stdout);
}

/** Exited with `code` and the first stderr line `error: <errorCode>: ...`; returns stderr. */
export function failed(run: Run, code: number, errorCode: string): string {
  exited(run, code);
  assert.match(run.stderr.split('\n')[0]!, new RegExp(`^error: ${errorCode}: \\S`), run.stderr);
  return run.stderr;
}

/** Polls the maker's open RFQs until one matches (the CLI submits it in another process). */
export async function openRfq(maker: RfqClient, match: (rfq: OpenRfq) => boolean, timeoutMs = 20_000): Promise<OpenRfq> {
  return waitFor(async () => (await maker.openRfqs({ limit: 100 })).items.find(match), 'the CLI submits the RFQ', { timeoutMs, pollMs: 25 });
}
