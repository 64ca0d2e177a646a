// Starts the venue simulator as a child process (as `src/chain/devnet.ts` starts anvil): it
// binds its own port (0: any free one) and prints its URL; we wait for that and for `/info` to
// answer. Stop: SIGTERM, SIGKILL after a grace period; killed when this process exits.
import type { ChildProcess } from 'node:child_process';
import { spawnTiedToParent } from '../../src/chain/tied-child.ts';
import { fileURLToPath } from 'node:url';
import { READY_PREFIX } from './ready.ts';

export type VenueSimProcessOptions = {
  /** Directory for the simulator's state (resumed on the next start); null: in memory. */
  dataDir: string | null;
  port?: number;
  host?: string;
  seed?: number;
  network?: 'mainnet' | 'testnet';
  startTimeoutMs?: number;
};

export type VenueSimProcess = {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
};

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

async function infoAnswers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'meta' }),
      signal: AbortSignal.timeout(2_000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

export async function startVenueSimProcess(options: VenueSimProcessOptions): Promise<VenueSimProcess> {
  const args = [MAIN, '--port', String(options.port ?? 0), '--host', options.host ?? '127.0.0.1'];
  if (options.dataDir) args.push('--data-dir', options.dataDir);
  if (options.seed !== undefined) args.push('--seed', String(options.seed));
  if (options.network) args.push('--network', options.network);
  // process.execPath is the Node that runs us (24, with type stripping), whatever `node` is on PATH.
  // Tied to us: a SIGKILL of this process does not orphan the simulator (tied-child.ts).
  const child = spawnTiedToParent(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (err) => {
      stderr += `\n${err.message}`;
      if (child.pid === undefined) resolve();
    });
  });
  void exitedPromise.then(() => process.off('exit', killOnExit));

  const timeoutMs = options.startTimeoutMs ?? 15_000;
  const url = await new Promise<string | null>((resolve) => {
    let out = '';
    const timer = setTimeout(() => resolve(null), timeoutMs);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith(READY_PREFIX));
      if (line) {
        clearTimeout(timer);
        resolve(line.slice(READY_PREFIX.length).trim());
      }
    });
    void exitedPromise.then(() => {
      clearTimeout(timer);
      resolve(null);
    });
  });
  // Keep draining stdout so the child never blocks on a full pipe.
  child.stdout?.resume();

  const kill = async () => {
    if (exited(child)) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exitedPromise;
    clearTimeout(timer);
  };
  const deadline = Date.now() + timeoutMs;
  let answering = false;
  while (url !== null && !exited(child) && Date.now() < deadline && !(answering = await infoAnswers(url))) {
    await new Promise((r) => setTimeout(r, 50));
  }
  if (url === null || !answering) {
    await kill();
    throw new Error(`venue simulator did not start (exit ${child.exitCode ?? child.signalCode}): ${stderr.trim()}`);
  }

  let stopping: Promise<void> | undefined;
  return { url, port: Number(new URL(url).port), pid: child.pid!, stop: () => (stopping ??= kill()) };
}
