/**
 * The WebSocket tests' shared set-up: one node per describe block (started before its tests,
 * closed after them with every socket its tests opened), sessions on it, and its socket limits
 * changed for the length of one test body.
 */
import { before, after } from 'node:test';
import type { RfqClient } from '../../src/client/rfq-client.ts';
import type { WsSettings } from '../../src/ws/ws-context.ts';
import { openSession, openSocket, SESSION_PATH, type TestSocket } from '../ws/test-socket.ts';
import type { Backend } from './backends.ts';
import { startHarness, type Harness } from './harness.ts';

export interface WsHarness {
  /** The node; set once the block's `before` has run. */
  readonly h: Harness;
  /** Every socket opened through this harness, closed after the block. */
  readonly sockets: TestSocket[];
  /** An unauthenticated socket on `path`. */
  connect(path?: string): Promise<TestSocket>;
  /** A socket authenticated as `client` on `path`. */
  session(client: RfqClient, path?: string): Promise<TestSocket>;
  /** Runs `body` with the node's socket limits changed by `limits`, then restores them. */
  withLimits<T>(limits: Partial<WsSettings>, body: () => Promise<T>): Promise<T>;
}

/** Registers the block's `before` and `after` hooks; call it inside `describe`. */
export function useWsHarness(backend: Backend): WsHarness {
  let node: Harness | undefined;
  const sockets: TestSocket[] = [];
  before(async () => {
    node = await startHarness(backend);
  });
  after(async () => {
    for (const s of sockets) s.close();
    await node?.close();
  });
  const started = (): Harness => {
    if (!node) throw new Error('the ws harness is used before its node started');
    return node;
  };
  return {
    get h() {
      return started();
    },
    sockets,
    connect: (path = SESSION_PATH) => openSocket(started().url, sockets, path),
    session: (client, path = SESSION_PATH) => openSession(started().url, client, sockets, path),
    async withLimits(limits, body) {
      const context = started().node.context;
      const configured = context.ws;
      context.ws = { ...configured, ...limits };
      try {
        return await body();
      } finally {
        context.ws = configured;
      }
    },
  };
}
