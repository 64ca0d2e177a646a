/**
 * The auction thread's own side (auction-thread.ts): a store of its own on the node's PostgreSQL
 * database, the use cases' dependencies built as the node builds them, and the auction closer.
 * Nothing else runs on this loop, so a close timer fires on time and the close's round trips are
 * read at once whatever the node's HTTP load.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import { openStore, type Store } from '../store/database.ts';
import { onOutboxCommit } from '../store/outbox.ts';
import { inBackgroundLane } from '../store/work-lane.ts';
import { systemClock } from '../services/deps.ts';
import { connectChainContext } from '../chain/chain-context.ts';
import { buildServiceDeps, wireSettlementGateways } from './service-deps.ts';
import { auctionCloser } from './auction-closer.ts';
import type { DeadlineWorker } from './deadline-worker.ts';
import type { AuctionThreadData, FromAuctionThread, ToAuctionThread } from './auction-thread.ts';

/** The reference data (instruments) a close resolves is kept this fresh, so a just-listed instrument's first close does not fail on a stale snapshot. */
const REFDATA_REFRESH_MS = 500;

const port = parentPort!;
const data = workerData as AuctionThreadData;
const post = (message: FromAuctionThread) => port.postMessage(message);
const logger = pino({ level: data.logLevel, name: 'auction-thread' });

let store: Store | null = null;
let closer: DeadlineWorker | null = null;
let refresh: NodeJS.Timeout | null = null;
let stopping = false;

async function stop(): Promise<void> {
  stopping = true;
  if (refresh) clearInterval(refresh);
  await closer?.stop();
  await store?.close();
  process.exit(0);
}

port.on('message', (message: ToAuctionThread) => {
  if (message.kind === 'stop') void stop();
  // The node's `settled` (tests): the answer follows every `closed` message of what the closer found.
  else if (message.kind === 'settle') void inBackgroundLane(() => closer?.settled() ?? Promise.resolve()).then(() => post({ kind: 'settled', id: message.id }));
  // The node posts schedules only once the thread said it is ready.
  else if (closer) inBackgroundLane(() => closer!.schedule(message.rfqId, message.atMs));
});

try {
  store = await openStore({ kind: 'postgres', url: data.databaseUrl, poolSize: data.poolSize });
  const deps = buildServiceDeps(store.db, {
    clock: systemClock,
    secretKey: data.secretKey,
    ...(data.siweDomain ? { siweDomain: data.siweDomain } : {}),
    ...(data.chainId ? { chainId: data.chainId } : {}),
  });
  if (data.chain) wireSettlementGateways(deps, await connectChainContext(data.chain), logger);
  await deps.refdata.reload();
  // The node reacts to what the close did: settlement timers, its dispatcher and other nodes.
  deps.hooks.quoteSelected = (rfqId, settlementDeadlineSecs) => post({ kind: 'selected', rfqId, settlementDeadlineSecs });
  onOutboxCommit(store.db, () => post({ kind: 'outbox' }));
  // The whole thread is background work: all of its own pool is the closer's.
  closer = inBackgroundLane(() => auctionCloser(deps, (closed) => post({ kind: 'closed', closed }), logger));
  inBackgroundLane(() => closer!.start());
  refresh = setInterval(() => void deps.refdata.current().catch(() => undefined), REFDATA_REFRESH_MS);
  if (!stopping) post({ kind: 'ready' });
} catch (error) {
  post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  await store?.close().catch(() => undefined);
  process.exit(1);
}
