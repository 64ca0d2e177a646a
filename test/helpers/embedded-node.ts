/**
 * `npm start` (src/runtime/main.ts) as a child process on a data directory, as a newcomer runs
 * it: started until its ready banner, with the banner's fields parsed. Optionally in its own
 * process group (`detached`), so a test can SIGKILL the whole stack (node, anvil, venue
 * simulator) the way `kill -9 -<pgid>` does.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

export const NODE = path.resolve('node_modules/.bin/node');
const READY_TIMEOUT_MS = 120_000;

export interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
  adminToken: string;
  devnetUrl: string;
  venueUrl: string;
  builderAddress: string;
  takerAddress: string;
  accessKey: string;
  secret: string;
  readyMs: number;
  /** The start's `•` step lines, each with the seconds since the spawn it arrived at: where a slow start spent its time. */
  steps: Array<{ atSecs: number; step: string }>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The environment of a newcomer: nothing that would select production or a setting of ours. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('RFQ_') || ['DATABASE_URL', 'CHAIN_RPC_URL', 'VENUE_URL', 'PORT', 'HOST'].includes(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** `npm start` (`viaNpm`: through npm itself, as a user types it) on `dataDir`, not waited for. */
export function spawnEmbedded(dataDir: string, port: number, options: { detached?: boolean; viaNpm?: boolean; env?: Record<string, string> } = {}): ChildProcess {
  const env = cleanEnv({ RFQ_DATA_DIR: dataDir, PORT: String(port), ...options.env });
  const [command, args] = options.viaNpm ? ['npm', ['start']] : [NODE, ['src/runtime/main.ts']];
  return spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
}

/** Starts `npm start` on `dataDir` and resolves at its ready banner; `children` tracks it until it exits. */
export async function startEmbedded(dataDir: string, port: number, children: Set<ChildProcess>, options: { detached?: boolean; viaNpm?: boolean; env?: Record<string, string> } = {}): Promise<Started> {
  const spawnedAt = performance.now();
  const child = spawnEmbedded(dataDir, port, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  const steps: Started['steps'] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line.startsWith('• ')) steps.push({ atSecs: (performance.now() - spawnedAt) / 1000, step: line.slice(2) });
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready banner within ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
    const check = () => {
      // The banner ends with the CLI hint line; wait for it so every field is in.
      if (/rfq-service ready[\s\S]*then: /.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before ready:\n${output}`));
    });
  });
  const field = (pattern: RegExp) => {
    const match = pattern.exec(output);
    assert.ok(match?.[1], `banner has ${pattern}:\n${output}`);
    return match[1];
  };
  return {
    child,
    output: () => output,
    readyMs: performance.now() - spawnedAt,
    steps,
    url: field(/REST\s+(http:\/\/\S+)\/v1/),
    adminToken: field(/\(token: (\S+)\)/),
    devnetUrl: field(/devnet\s+(http:\/\/\S+)/),
    venueUrl: field(/venue\s+(http:\/\/\S+)\s+\(simulator/),
    builderAddress: field(/builder\s+(0x[0-9a-f]{40})\n/),
    takerAddress: field(/demo taker\s+(0x[0-9a-fA-F]{40})\n/),
    accessKey: field(/accessKey (\S+)/),
    secret: field(/secret\s+(\S+)/),
  };
}

/** Live processes whose command line names `dir` (the venue simulator's and anvil's state are under the data directory). */
export async function processesUsing(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(dir)) found.push(`${pid}: ${cmdline.replaceAll('\0', ' ')}`);
  }
  return found;
}

export async function rpcAnswers(url: string): Promise<boolean> {
  try {
    await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}', signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}
