/**
 * Stopping the stack with Ctrl-C. A terminal's Ctrl-C sends SIGINT to the whole
 * foreground process group (the node, anvil, the venue simulator, the demo makers inside the
 * node), so the children may be gone while the node still drains the requests in flight. The
 * stop must say so in a line and exit 0, never print a stack trace.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { freePort, processesUsing, startEmbedded } from '../helpers/embedded-node.ts';
import { waitFor } from '../helpers/eventually.ts';

const children = new Set<ChildProcess>();
let dataDir = '';

after(async () => {
  for (const child of children) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/**
 * Lines that carry a stack trace: printed (`    at fn (file:line:col)`, an uncaught error's
 * dump) or inside a JSON log line (pino's `"stack":"Error: ...\n    at ..."`).
 */
const traceLines = (output: string) => output.split('\n').filter((line) => /^\s+at\s/.test(line) || /^(Uncaught|Unhandled|node:internal)/.test(line) || /"stack":"/.test(line));

describe('Ctrl-C (SIGINT to the process group) while requests are in flight', () => {
  it('drains and stops with no stack trace, exit 0, nothing left running', async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'rfq-sigint-'));
    const started = await startEmbedded(dataDir, await freePort(), children, { detached: true });
    const taker = new RfqClient(started.url, { accessKey: started.accessKey, secret: started.secret });

    // Takers keep RFQs coming (the demo makers quote them, settlement goes to the devnet) until the stop.
    let stopping = false;
    let sent = 0;
    const load = Array.from({ length: 6 }, async (_, i) => {
      while (!stopping) {
        sent++;
        await taker.createRfq({ instrumentId: i % 2 === 0 ? 'ETH-USDC-SPOT' : 'BTC-USDC-SPOT', side: 'BUY', baseQty: '0.01', windowMs: 1000 }).then((r) => taker.getRfq(r.rfqId)).catch(() => undefined);
      }
    });
    await waitFor(() => sent > 24, 'the takers have had RFQs answered', { timeoutMs: 60_000 });
    assert.ok(sent > 6, 'requests were in flight');

    const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
    process.kill(-started.child.pid!, 'SIGINT');
    const code = await exited;
    stopping = true;
    await Promise.all(load);
    const output = started.output();
    const tail = output.slice(output.indexOf('SIGINT'));
    assert.match(output, /SIGINT: draining and stopping/);
    assert.deepEqual(traceLines(tail), [], `no stack trace while draining:\n${tail}`);
    assert.equal(code, 0, tail);
    assert.deepEqual(await processesUsing(dataDir), [], 'nothing of the stack is left running');
  });
});
