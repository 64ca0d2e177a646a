/**
 * Child processes the benchmark drives (the service under test, the bare baseline server), and
 * CPU accounting from /proc so each phase can say where the machine's two cores went.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Child {
  child: ChildProcess;
  pid: number;
  url: string;
  stderrTail: string[];
  stderrLines: number;
  stop(): Promise<number | null>;
}

export interface SpawnOptions {
  name: string;
  args: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  /** Regex on stdout whose first group is the listening URL. */
  ready: RegExp;
  timeoutMs?: number;
}

/** Every server spawned by this process and not yet stopped, for an interrupted run. */
const live = new Set<Child>();

// A run that ends abruptly (an uncaught error, a closed stdout pipe, `process.exit` from a signal
// handler) still takes the servers it spawned with it: they run in process groups of their own.
process.on('exit', () => {
  for (const c of live) {
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      // the group is gone
    }
  }
});

/** Stops every server this process spawned that is still running (SIGINT / SIGTERM handlers). */
export async function stopAllServers(): Promise<void> {
  await Promise.allSettled([...live].map((c) => c.stop()));
}

export async function spawnServer(options: SpawnOptions): Promise<Child> {
  // Its own process group: stop() signals the group, so what the server started (the embedded
  // anvil and venue simulator) goes with it and the bench leaves no process behind.
  const child = spawn(process.execPath, options.args, { cwd: options.cwd, env: options.env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone
    }
  };
  const stderrTail: string[] = [];
  let stderrLines = 0;
  let stdout = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // BENCH_SERVICE_LOG=<file>: the server's whole output kept, e.g. what `--trace-gc` prints when
  // given through BENCH_SERVICE_NODE_ARGS (its stdout is otherwise only read up to readiness).
  const log = process.env.BENCH_SERVICE_LOG ? createWriteStream(process.env.BENCH_SERVICE_LOG, { flags: 'a' }) : null;
  if (log) {
    child.stdout!.on('data', (chunk: Buffer | string) => log.write(chunk));
    child.stderr!.on('data', (chunk: Buffer | string) => log.write(chunk));
    void exited.then(() => log.end());
  }
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) {
      if (!line) continue;
      stderrLines += 1;
      stderrTail.push(line.slice(0, 400));
      if (stderrTail.length > 40) stderrTail.shift();
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.name} did not start in time; stdout: ${stdout} stderr: ${stderrTail.join('\n')}`)), options.timeoutMs ?? 60_000);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const match = options.ready.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code} before it was ready; stderr: ${stderrTail.join('\n')}`));
    });
  });
  const result: Child = {
    child,
    pid: child.pid!,
    url,
    stderrTail,
    get stderrLines() {
      return stderrLines;
    },
    async stop() {
      live.delete(result);
      if (child.exitCode !== null) {
        signalGroup('SIGKILL'); // anything it left
        return child.exitCode;
      }
      child.kill('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      signalGroup('SIGKILL'); // anything the server did not stop itself
      return code;
    },
  };
  live.add(result);
  return result;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU time (user + system, ms) of one process, or null if it is gone. */
export function processCpuMs(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is state (field 3); utime is field 14, stime field 15.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** Machine-wide CPU: busy and total jiffies as ms (all cores summed). */
export function machineCpuMs(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: ((total - idle) * 1000) / CLOCK_TICKS, total: (total * 1000) / CLOCK_TICKS };
}

export function loadAverage(): string {
  return os.loadavg().map((v) => v.toFixed(2)).join(' ');
}

/** Asks the probe preloaded into the service (bench/lib/service-probe.ts) for its counters. */
export async function readProbe(child: Child, file: string): Promise<ProbeSnapshot | null> {
  const before = await stat(file).then((s) => s.mtimeMs, () => 0);
  let previousSeq = -1;
  try {
    previousSeq = (JSON.parse(await readFile(file, 'utf8')) as ProbeSnapshot).seq;
  } catch {
    // no snapshot yet
  }
  child.child.kill('SIGUSR2');
  for (let i = 0; i < 100; i++) {
    await sleep(20);
    try {
      const mtime = (await stat(file)).mtimeMs;
      if (mtime === before && previousSeq >= 0) continue;
      const snapshot = JSON.parse(await readFile(file, 'utf8')) as ProbeSnapshot;
      if (snapshot.seq > previousSeq) return snapshot;
    } catch {
      // not written yet, or mid-rename
    }
  }
  return null;
}

export interface ProbeSnapshot {
  seq: number;
  /** Statements sent per normalised SQL prefix since the last snapshot. */
  queries: Record<string, { count: number; totalMs: number }>;
  totalQueries: number;
  poolWait: { count: number; p50: number; p99: number; max: number; totalMs: number };
  poolHold: { count: number; p50: number; p99: number; max: number; totalMs: number };
  eventLoopDelay: { p50: number; p99: number; max: number };
  samples?: Record<string, { text: string; values: unknown }>;
  timers?: { fired: number; early: number; earlyMaxMs: number };
  /** Garbage-collection pauses since the last snapshot: scavenges, and the rest (mark-compact, incremental, weak callbacks). */
  gc?: GcPauses;
}

export interface GcPauses {
  minor: { count: number; totalMs: number; maxMs: number };
  major: { count: number; totalMs: number; maxMs: number };
}

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
