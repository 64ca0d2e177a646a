/**
 * The recovery thread's body (recovery-thread.ts): recovers the signer of each order text it is
 * sent, in order, and answers with the address or the error's message. Warms secp256k1 first.
 */
import { parentPort } from 'node:worker_threads';
import { recoverSignerOfText, warmUpRecovery } from '../services/perp/check-reads.ts';
import type { VenueNetwork } from '../domain/perp/types.ts';

export interface RecoveryRequest {
  id: number;
  orderJson: string;
  network: VenueNetwork;
}

export interface RecoveryReply {
  id: number;
  address: `0x${string}` | null;
  error: string | null;
}

const port = parentPort!;
await warmUpRecovery('mainnet');
port.on('message', (request: RecoveryRequest) => {
  void recoverSignerOfText(request.orderJson, request.network).then((recovered) => {
    const reply: RecoveryReply = recovered.address !== null
      ? { id: request.id, address: recovered.address, error: null }
      : { id: request.id, address: null, error: recovered.error instanceof Error ? recovered.error.message : String(recovered.error) };
    port.postMessage(reply);
  });
});
