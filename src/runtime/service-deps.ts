/**
 * The use cases' dependencies over one store, built the same way wherever use cases run: the
 * node's main thread and the auction-close thread (auction-thread.ts), which opens its own
 * connections to the same PostgreSQL database and must select and sign exactly as the node would.
 */
import type { Logger } from 'pino';
import type { Db } from '../store/transaction.ts';
import { ReferenceData } from '../store/reference-data.ts';
import { SettingsCache } from '../store/settings.ts';
import { systemIds } from '../services/ids.ts';
import { createSecretBox } from '../services/secret-box.ts';
import { takerPseudonyms } from '../services/conduct/taker-pseudonyms.ts';
import { LastTrades } from '../services/prices/last-trades.ts';
import { defaultAuthSettings, noHooks, type Clock, type ServiceDeps } from '../services/deps.ts';
import { QuoteCaches } from '../services/rfq/quote-caches.ts';
import { QuoteWriter } from '../services/rfq/write-quote.ts';
import { promisedGateway } from '../services/rfq/promised-gateway.ts';
import { permit2Gateway } from '../chain/permit2-gateway.ts';
import type { ChainContext } from '../chain/chain-context.ts';
import type { VenueClient } from '../venue/venue-client.ts';

export interface ServiceDepsOptions {
  clock: Clock;
  secretKey: string;
  siweDomain?: string;
  chainId?: number;
  venue?: VenueClient | null;
}

export function buildServiceDeps(db: Db, options: ServiceDepsOptions): ServiceDeps {
  const { clock } = options;
  return {
    db,
    clock,
    ids: systemIds,
    secrets: createSecretBox(options.secretKey),
    pseudonyms: takerPseudonyms(options.secretKey),
    lastTrades: new LastTrades(),
    refdata: new ReferenceData(db, () => clock.now()),
    settings: new SettingsCache(db),
    hooks: { ...noHooks },
    settlement: {},
    quoteCaches: new QuoteCaches(),
    quoteWriter: new QuoteWriter(db),
    auth: { siweDomain: options.siweDomain ?? 'localhost', chainId: options.chainId ?? 31337, ...defaultAuthSettings },
    ...(options.venue ? { venue: options.venue } : {}),
  };
}

/** The settlement gateways a selection hands its winner to: permit2 (signed by custody) and promised. */
export function wireSettlementGateways(service: ServiceDeps, chain: ChainContext, logger: Logger): void {
  service.settlement.permit2 = permit2Gateway(chain, service.refdata, logger);
  service.settlement.promised = promisedGateway;
}
