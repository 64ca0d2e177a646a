/**
 * Starts a service node as its own OS process (test/helpers/node-process.ts) and hands back its
 * URL and a SIGKILL, for tests where a node dies without a word.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import type { NodeOptions } from '../../src/runtime/node.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NODE_BIN = path.join(ROOT, 'node_modules/.bin/node');
const LAUNCHER = path.join(ROOT, 'test/helpers/node-process.ts');

export interface SpawnedNode {
  url: string;
  pid: number;
  /** SIGKILL, resolved once the process is gone; a second call does nothing. */
  kill(): Promise<void>;
}

export async function spawnNode(options: Omit<NodeOptions, 'workers' | 'store'> & { store: unknown; workers?: string[] }): Promise<SpawnedNode> {
  const proc = spawn(NODE_BIN, [LAUNCHER], { env: { ...process.env, RFQ_TEST_NODE_OPTIONS: JSON.stringify(options) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout }).on('line', (l) => {
      if (l.startsWith('RFQ_NODE_READY ')) resolve(l.slice('RFQ_NODE_READY '.length));
    });
    proc.once('exit', (code) => reject(new Error(`node process exited with ${code} before listening`)));
  });
  const { url } = JSON.parse(line) as { url: string };
  let killed = false;
  return {
    url,
    pid: proc.pid!,
    async kill() {
      if (!killed) {
        killed = true;
        proc.kill('SIGKILL');
      }
      await exited;
    },
  };
}
