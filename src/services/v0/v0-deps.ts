/** What every `/v0` use case receives: the service's dependencies, the venue port, the JWT key. */
import type { ServiceDeps } from '../deps.ts';
import type { V0Settings, V0Venue } from './venue-port.ts';

export interface V0Deps {
  service: ServiceDeps;
  venue: V0Venue;
  /** HS256 key for `/v0` JWTs, derived from RFQ_SECRET_KEY (HKDF, label `v0-jwt`). */
  jwtKey: Uint8Array;
  settings: V0Settings;
}
