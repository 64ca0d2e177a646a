/**
 * Runs one service node as its own OS process, for tests that kill it (SIGKILL) and start it
 * again. Options come as JSON in RFQ_TEST_NODE_OPTIONS (NodeOptions, with `workers` as an
 * array); once it listens it prints `RFQ_NODE_READY {"url":...}` on stdout (among its logs). SIGTERM closes
 * it cleanly. Independent of config.ts on purpose: the test decides every option.
 */
import { startNode, type NodeOptions } from '../../src/runtime/node.ts';

const raw = process.env['RFQ_TEST_NODE_OPTIONS'];
if (!raw) throw new Error('RFQ_TEST_NODE_OPTIONS is not set');
const { workers, ...options } = JSON.parse(raw) as Omit<NodeOptions, 'workers'> & { workers?: string[] };
const node = await startNode({ ...options, ...(workers ? { workers: new Set(workers) } : {}) });
process.stdout.write(`RFQ_NODE_READY ${JSON.stringify({ url: node.url, pid: process.pid })}\n`);
process.on('SIGTERM', () => {
  void node.close().then(() => process.exit(0));
});
