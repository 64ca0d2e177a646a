/**
 * Maker-protection scenarios (cancel on disconnect, market-maker protection): a funded taker's
 * taker-driven RFQ on ETH-USDC-SPOT, a maker's quote on it, and waiting for a quote's status.
 */
import assert from 'node:assert/strict';
import type { RfqClient } from '../../src/client/rfq-client.ts';
import type { Harness } from './harness.ts';
import { eventually } from './eventually.ts';
import { authFrame, openSocket, type TestSocket } from '../ws/test-socket.ts';

export const INSTRUMENT = 'ETH-USDC-SPOT';

/** A signed-in taker with enough USDC for a few 1 ETH purchases. */
export async function fundedTaker(node: Harness): Promise<RfqClient> {
  const taker = await node.newUser();
  await node.fund(taker.account.address, { USDC: '100000' });
  return taker.client;
}

/** A taker-driven 1 ETH BUY, open for a minute, and the maker's quote on it at `price` USDC. */
export async function quotedRfq(taker: RfqClient, maker: RfqClient, price = '3000'): Promise<{ rfqId: string; quoteId: string }> {
  const rfq = await taker.createRfq({ instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: false, windowMs: 60_000 });
  const quote = await maker.submitQuote({ rfqId: rfq.rfqId, instrumentId: INSTRUMENT, side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: price } });
  return { rfqId: rfq.rfqId, quoteId: quote.quoteId };
}

/** Polls the maker's view of its quote until it has `status` (or the time is up); returns the last status seen. */
export async function quoteStatusWithin(maker: RfqClient, quoteId: string, status: string, timeoutMs: number): Promise<string> {
  return eventually(async () => (await maker.makerQuotes({ limit: 100 })).items.find((q) => q.quoteId === quoteId)?.status ?? 'missing', (current) => current === status, timeoutMs);
}

/** A session that asked for cancel on disconnect; returns it with its `health` frame. */
export async function flaggedSession(url: string, client: RfqClient, sockets: TestSocket[]): Promise<{ socket: TestSocket; health: Record<string, unknown> }> {
  const socket = await openSocket(url, sockets);
  socket.send({ ...authFrame(client), cancelOnDisconnect: true });
  const health = await socket.next();
  assert.equal(health.kind, 'health', JSON.stringify(health));
  return { socket, health };
}
