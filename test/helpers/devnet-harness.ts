/**
 * A describe block's devnet and node on it: the chain started and the node opened with its
 * settlement wired before the block's tests, operator settings applied, and every socket the
 * tests opened closed with the node and the chain after them.
 */
import { after, before } from 'node:test';
import type { OperatorSettings } from '../../src/store/settings.ts';
import type { TestSocket } from '../ws/test-socket.ts';
import type { Backend } from './backends.ts';
import { startTestChain, type TestChain } from './chain.ts';
import { startHarness, type Harness } from './harness.ts';

export interface DevnetHarness {
  readonly chain: TestChain;
  readonly h: Harness;
  /** Sockets to close after the block. */
  readonly sockets: TestSocket[];
}

/** Registers the hooks; call inside `describe`. The getters throw before the `before` hook ran. */
export function useDevnetHarness(backend: Backend, settings: Partial<OperatorSettings> = {}): DevnetHarness {
  let chain: TestChain | undefined;
  let h: Harness | undefined;
  const sockets: TestSocket[] = [];
  before(async () => {
    chain = await startTestChain();
    h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, logLevel: 'fatal' });
    if (Object.keys(settings).length > 0) await h.admin.putSettings(settings);
  });
  after(async () => {
    for (const socket of sockets) socket.close();
    await h?.close();
    await chain?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the devnet harness is used before its before hook ran');
    return value;
  };
  return {
    get chain() {
      return started(chain);
    },
    get h() {
      return started(h);
    },
    sockets,
  };
}
