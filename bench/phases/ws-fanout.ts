/**
 * WebSocket fan-out and the quote -> `quoteUpdate` hop, as a phase of bench/run.ts: runs
 * bench/ws.ts (its own bare `ws` server, service and database) as a child process in its own
 * process group and reads the results it writes. A child rather than an import because ws.ts
 * holds thousands of sockets in its process: the main benchmark's load generator stays out of
 * that process's event loop, and ws.ts stays runnable on its own.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../lib/processes.ts';
import type { WsResults } from '../ws.ts';

export type WsFanoutResult = WsResults;

export interface WsFanoutOptions {
  quick: boolean;
  /** Seconds per tick and quote step (ws.ts `--duration`). */
  durationSecs: number;
  adminUrl: string;
  log: (line: string) => void;
  /** Registers how to stop the child, for an interrupted benchmark; returns the unregister function. */
  track: (stop: () => Promise<void>) => () => void;
}

export async function runWsFanout(options: WsFanoutOptions): Promise<WsFanoutResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rfq-bench-ws-results-'));
  const file = path.join(dir, 'ws.json');
  const args = ['bench/ws.ts', '--db', options.adminUrl, '--duration', String(options.durationSecs), '--results', file];
  if (options.quick) args.push('--quick');
  options.log(`ws: node ${args.join(' ')}`);
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: process.env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone
    }
  };
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  // Interrupted: SIGTERM lets ws.ts stop the servers it started (each in its own group).
  const untrack = options.track(async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(killGroup, 25_000);
    await exited.catch(() => null);
    clearTimeout(timer);
    killGroup();
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) if (line.trim()) options.log(`ws: ${line.replace(/^\[\s*[\d.]+ s\] /, '')}`);
  });
  try {
    const code = await exited;
    const results = JSON.parse(await readFile(file, 'utf8').catch(() => 'null')) as WsResults | null;
    if (!results) throw new Error(`bench/ws.ts exited ${code} without results`);
    if (code !== 0 && results.failures.length === 0) results.failures.push(`bench/ws.ts exited ${code}`);
    return results;
  } finally {
    // ws.ts stops its own servers; anything left in its group (a server it could not stop) goes too.
    killGroup();
    untrack();
    await rm(dir, { recursive: true, force: true });
  }
}
