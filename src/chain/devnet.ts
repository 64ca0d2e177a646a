// The embedded devnet: an anvil child process on loopback (DESIGN.md §5, "Chain").
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DevnetStateKeeper } from './devnet-state.ts';
import { spawnTiedToParent } from './tied-child.ts';

export const DEVNET_CHAIN_ID = 31337;

export type DevnetOptions = {
  /** Fixed port; by default a free loopback port is picked. */
  port?: number;
  /**
   * State file: loaded at start if present, saved by the node about every second and on stop
   * (devnet-state.ts), so a restart resumes; `durableBlock` says which block is on disk.
   */
  stateFile?: string;
  /**
   * Periodic block interval; each transaction is also mined at once. Without a state file anvil
   * does both (`--block-time` with `--mixed-mining`); with one, anvil mines instantly only and the
   * state keeper mines the periodic block, since it must stop all mining while it dumps (devnet-state.ts).
   */
  blockTimeSecs?: number;
  /** How long to wait for the RPC to answer. */
  startTimeoutMs?: number;
};

export type Devnet = {
  rpcUrl: string;
  chainId: typeof DEVNET_CHAIN_ID;
  port: number;
  pid: number;
  /** With a state file: the highest block saved on disk (a restart resumes at least there); else null. */
  durableBlock: (() => number) | null;
  /** Saves the state a last time (with a state file), then stops anvil (SIGTERM; SIGKILL after a grace period). Idempotent. */
  stop(): Promise<void>;
};

const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/** The anvil binary shipped by the platform package of `@foundry-rs/anvil` (not whatever is on PATH). */
export function anvilBinaryPath(): string {
  const pkg = `@foundry-rs/anvil-${process.platform}-${ARCH[process.arch] ?? process.arch}`;
  const require = createRequire(import.meta.url);
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'bin', exe);
}

/**
 * anvil rejects port 0, so we bind the port ourselves (0: any free one), release it and hand
 * it over. With a fixed port this also fails fast when something already listens there,
 * instead of mistaking that process for our anvil.
 */
async function freePort(port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', (err) => reject(new Error(`port ${port} on 127.0.0.1 is not available: ${err.message}`)));
    srv.listen(port, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

async function rpcAnswers(rpcUrl: string): Promise<boolean> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

async function launch(port: number, opts: DevnetOptions): Promise<Devnet> {
  const blockTimeSecs = opts.blockTimeSecs ?? 1;
  const args = [
    '--host', '127.0.0.1',
    '--port', String(port),
    '--chain-id', String(DEVNET_CHAIN_ID),
    ...(opts.stateFile ? [] : ['--block-time', String(blockTimeSecs), '--mixed-mining']),
    '--silent',
  ];
  if (opts.stateFile) {
    mkdirSync(dirname(opts.stateFile), { recursive: true });
    // Load only: anvil's own periodic dump would save blocks at moments nobody knows (devnet-state.ts).
    if (existsSync(opts.stateFile)) args.push('--load-state', opts.stateFile);
  }

  // Tied to us: if this process dies without stopping it (SIGKILL), anvil is signalled too.
  const child = spawnTiedToParent(anvilBinaryPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  // Last resort if the owner never calls stop(): 'exit' handlers run on process.exit() and on
  // a normal end of the event loop (a parent killed by a signal is covered by the tie above).
  const killOnExit = () => child.kill('SIGTERM');
  process.on('exit', killOnExit);
  // 'error' covers a binary that cannot be spawned at all (no 'exit' follows then).
  child.on('error', (err) => (stderr += `\n${err.message}`));
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => child.pid === undefined && resolve());
  });
  exitedPromise.then(() => process.off('exit', killOnExit));

  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 15_000);
  while (!(await rpcAnswers(rpcUrl))) {
    if (exited(child) || Date.now() > deadline) {
      child.kill('SIGKILL');
      await exitedPromise;
      throw new Error(`anvil did not start on ${rpcUrl} (exit ${child.exitCode ?? child.signalCode}): ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  if (exited(child)) {
    // Something else answered on that port (our anvil lost the bind race and quit).
    throw new Error(`anvil exited while another process answered on ${rpcUrl}: ${stderr.trim()}`);
  }

  const keeper = opts.stateFile ? new DevnetStateKeeper({ rpcUrl, stateFile: opts.stateFile, blockTimeSecs }) : null;
  try {
    await keeper?.start();
  } catch (error) {
    child.kill('SIGKILL');
    await exitedPromise;
    throw new Error(`anvil state could not be saved to ${opts.stateFile}: ${error instanceof Error ? error.message : String(error)}`);
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (exited(child)) return;
      await keeper?.stop().catch((error: unknown) => process.stderr.write(`devnet state not saved on stop: ${error instanceof Error ? error.message : String(error)}\n`));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exitedPromise;
      clearTimeout(timer);
    })());

  return { rpcUrl, chainId: DEVNET_CHAIN_ID, port, pid: child.pid!, durableBlock: keeper ? () => keeper.durableBlock : null, stop };
}

// Starts are serialised within the process: the next free-port probe then runs only once the
// previous anvil holds its port, so two devnets started together cannot pick the same one.
let startQueue: Promise<unknown> = Promise.resolve();

/** Starts anvil on 127.0.0.1 and resolves once its JSON-RPC answers. */
export function startDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const started = startQueue.then(() => startNow(opts));
  startQueue = started.catch(() => undefined);
  return started;
}

async function startNow(opts: DevnetOptions): Promise<Devnet> {
  if (opts.port !== undefined) return launch(await freePort(opts.port), opts);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await launch(await freePort(), opts);
    } catch (err) {
      lastError = err; // most likely another process took the port between probing and binding
    }
  }
  throw lastError;
}
