/**
 * Builds the `/v0` venue side of a node: the omnibus port, its worker and the omnibus invariant.
 * Orders are signed by the API wallet the omnibus approved (`agentKey`); transfers by the omnibus key.
 */
import type { Logger } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import type { V0Deps } from '../../services/v0/v0-deps.ts';
import type { ExtraInvariant } from '../../services/admin/invariants.ts';
import { VenueHttp } from './venue-http.ts';
import type { VenueBudget } from '../venue-budget.ts';
import { OmnibusVenue } from './omnibus-venue.ts';
import { VenueStream, venueSocketUrl } from '../venue-stream.ts';
import { OmnibusWorker } from './omnibus-worker.ts';
import { omnibusInvariant } from './omnibus-invariant.ts';

export interface V0VenueSettings {
  url: string;
  /** 0x-prefixed private keys. */
  omnibusKey: string;
  agentKey: string;
  network: 'mainnet' | 'testnet';
  pollIntervalMs?: number;
  /** The longest pause between idle ledger reads (default 30 s: 40 weight a minute); a deposit is credited within it. */
  ledgerIdleMaxMs?: number;
  /** While the stream is live, one REST read of the ledger this often all the same (default 60 s: 20 weight a minute). */
  ledgerReconcileMs?: number;
  /**
   * The omnibus's fills and ledger updates pushed over the venue's WebSocket (default true);
   * false: the passes poll with back-off (the fallback while the socket is down).
   */
  push?: boolean;
}

export interface OmnibusWiring {
  venue: OmnibusVenue;
  attach(deps: V0Deps, logger: Logger): { worker: OmnibusWorker; invariant: ExtraInvariant };
}

export function wireOmnibus(settings: V0VenueSettings, now: () => number, budget: VenueBudget | null = null): OmnibusWiring {
  const http = new VenueHttp(settings.url, budget);
  const omnibus = privateKeyToAccount(settings.omnibusKey as `0x${string}`);
  const agent = privateKeyToAccount(settings.agentKey as `0x${string}`);
  // Spot metadata (20 weight a read) changes when the venue lists a token: a minute-old copy costs
  // a new token a minute's wait, and a grid changed meanwhile only a refused order (the venue
  // checks every order), where a fresh read for every few orders would cost a fifth of the budget.
  const venue = new OmnibusVenue({ http, omnibusAddress: omnibus.address, metaTtlMs: 60_000, infoTimeoutMs: 3000, now });
  return {
    venue,
    attach(deps, logger) {
      const worker = new OmnibusWorker({
        deps,
        venue,
        http,
        omnibus,
        agent,
        network: settings.network,
        pollIntervalMs: settings.pollIntervalMs ?? 250,
        ledgerIdleMaxMs: settings.ledgerIdleMaxMs ?? 30_000,
        ...(settings.ledgerReconcileMs !== undefined ? { ledgerReconcileMs: settings.ledgerReconcileMs } : {}),
        exchangeTimeoutMs: 5000,
        infoTimeoutMs: 3000,
        reconcileAfterMs: 3000,
        logger,
        stream: settings.push === false ? null : new VenueStream({ url: venueSocketUrl(settings.url), user: omnibus.address, logger }),
      });
      return { worker, invariant: omnibusInvariant(http, omnibus.address) };
    },
  };
}
