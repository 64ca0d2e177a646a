/**
 * Signer recovery of perp taker orders on a thread of its own. A recovery is ~4 ms of CPU in
 * pure-JS secp256k1; on the node's event loop it delayed whatever else the loop had to do at that
 * moment (the accept's own commit and 202 among them). The thread takes the order's JSON
 * text, exactly what the execution records and checks, and parses it the same way, so it hashes
 * the same keys in the same order. Should the thread fail, recoveries fall back to the event loop:
 * slower, never wrong.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { recoverSignerOfText, type Recovered, type SignerRecovery } from '../services/perp/check-reads.ts';
import type { VenueNetwork } from '../domain/perp/types.ts';
import type { RecoveryReply, RecoveryRequest } from './recovery-thread-entry.ts';

export class RecoveryThread {
  #worker: Worker | null;
  #next = 1;
  readonly #pending = new Map<number, { orderJson: string; network: VenueNetwork; resolve: (r: Recovered) => void }>();

  constructor(logger: Logger) {
    this.#worker = new Worker(new URL('./recovery-thread-entry.ts', import.meta.url), { name: 'signer-recovery', execArgv: [] });
    this.#worker.unref();
    this.#worker.on('message', (reply: RecoveryReply) => {
      const waiting = this.#pending.get(reply.id);
      if (!waiting) return;
      this.#pending.delete(reply.id);
      waiting.resolve(reply.address !== null ? { address: reply.address, error: null } : { address: null, error: new Error(reply.error ?? 'no address') });
    });
    const fail = (reason: string) => {
      if (this.#worker === null) return;
      this.#worker = null;
      logger.warn({ reason }, 'signer recovery thread stopped; recovering on the event loop');
      for (const [id, waiting] of this.#pending) {
        this.#pending.delete(id);
        void recoverSignerOfText(waiting.orderJson, waiting.network).then(waiting.resolve);
      }
    };
    this.#worker.on('error', (error) => fail(error.message));
    this.#worker.on('exit', (code) => fail(`exit ${code}`));
  }

  readonly recover: SignerRecovery = (orderJson, network) => {
    const worker = this.#worker;
    if (worker === null) return recoverSignerOfText(orderJson, network);
    return new Promise<Recovered>((resolve) => {
      const id = this.#next++;
      this.#pending.set(id, { orderJson, network, resolve });
      const request: RecoveryRequest = { id, orderJson, network };
      worker.postMessage(request);
    });
  };

  async stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    for (const [id, waiting] of this.#pending) {
      this.#pending.delete(id);
      void recoverSignerOfText(waiting.orderJson, waiting.network).then(waiting.resolve);
    }
    await worker?.terminate();
  }
}
