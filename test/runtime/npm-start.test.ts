/**
 * Starting and stopping as a new user does. SIGTERM to the PID of `npm
 * start` drains and stops the node and every child it started (anvil, the venue simulator). A
 * second start on the same data directory refuses at once and names the owner's PID. The devnet
 * and venue simulator come back on the same ports after a restart. A busy port, the node's own or
 * a pinned one, is refused at once with the port named, before any set-up.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../helpers/eventually.ts';
import { freePort, processesUsing, rpcAnswers, spawnEmbedded, startEmbedded } from '../helpers/embedded-node.ts';

const children = new Set<ChildProcess>();
const dirs: string[] = [];
const servers: Server[] = [];

after(async () => {
  for (const child of children) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const server of servers) server.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rfq-npm-start-'));
  dirs.push(dir);
  return dir;
}

/** Runs a start that must refuse: its exit code, output and how long it took. */
async function refused(dir: string, port: number, env: Record<string, string> = {}): Promise<{ code: number | null; output: string; ms: number }> {
  const startedAt = performance.now();
  const child = spawnEmbedded(dir, port, { env, detached: true });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  children.delete(child);
  return { code, output, ms: performance.now() - startedAt };
}

async function listening(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('npm start as a new user runs it', () => {
  it('a busy port is refused at once, naming it: the node\'s own and a pinned devnet or venue port', async () => {
    const busy = await listening();
    const cases: Array<[number, Record<string, string>, RegExp]> = [
      [busy, {}, new RegExp(`port ${busy} on 127.0.0.1 \\(PORT`)],
      [await freePort(), { RFQ_DEVNET_PORT: String(busy) }, new RegExp(`port ${busy} on 127.0.0.1 \\(RFQ_DEVNET_PORT\\)`)],
      [await freePort(), { RFQ_VENUE_SIM_PORT: String(busy) }, new RegExp(`port ${busy} on 127.0.0.1 \\(RFQ_VENUE_SIM_PORT\\)`)],
    ];
    for (const [port, env, expected] of cases) {
      const run = await refused(await dataDir(), port, env);
      assert.equal(run.code, 2, run.output);
      assert.match(run.output, /refusing to start/);
      assert.match(run.output, expected);
      assert.doesNotMatch(run.output, /^\s+at\s/m, 'no stack trace');
      assert.ok(run.ms < 15_000, `refused at once, not after the set-up (${Math.round(run.ms)} ms)`);
    }
  });

  it('SIGTERM to npm stops everything; a second start on the directory refuses; a restart keeps the ports', async () => {
    const dir = await dataDir();
    const first = await startEmbedded(dir, await freePort(), children, { detached: true, viaNpm: true });
    const lockOwner = Number((await readFile(path.join(dir, 'owner.lock'), 'utf8')).trim());
    assert.ok(lockOwner > 0 && lockOwner !== first.child.pid, 'the node, not npm, holds the directory');

    const second = await refused(dir, await freePort());
    assert.equal(second.code, 2, second.output);
    assert.match(second.output, new RegExp(`data directory ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by process ${lockOwner}`));

    const exited = new Promise<void>((resolve) => first.child.once('exit', () => resolve()));
    process.kill(first.child.pid!, 'SIGTERM');
    await exited;
    await eventually(() => processesUsing(dir), (left) => left.length === 0, 30_000, 200);
    assert.equal(await rpcAnswers(first.devnetUrl), false, 'the devnet is gone');
    await assert.rejects(readFile(path.join(dir, 'owner.lock')), 'the lock is given back');

    const again = await startEmbedded(dir, await freePort(), children, { detached: true });
    assert.equal(again.devnetUrl, first.devnetUrl, 'the devnet is where it was');
    assert.equal(again.venueUrl, first.venueUrl, 'the venue simulator is where it was');
    const stopped = new Promise<void>((resolve) => again.child.once('exit', () => resolve()));
    process.kill(again.child.pid!, 'SIGTERM');
    await stopped;
    await eventually(() => processesUsing(dir), (left) => left.length === 0, 30_000, 200);
  });
});
