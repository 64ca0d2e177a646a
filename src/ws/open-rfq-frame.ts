/**
 * A broadcast `rfq` frame as one maker receives it (counterparty choice, DESIGN.md section 15).
 * The outbox row carries the RFQ's audience and its taker's account id under `route`, which never
 * leaves the node: a maker outside the audience gets nothing, one inside gets the frame without
 * `route` and with `taker`, its own pseudonym for the taker.
 */
import { reaches } from '../domain/rfq/index.ts';
import type { TakerPseudonyms } from '../services/conduct/taker-pseudonyms.ts';
import type { OpenRfqRoute } from '../services/rfq/views.ts';

export function openRfqFrameFor(frame: Record<string, unknown>, makerAccountId: string, pseudonyms: TakerPseudonyms): Record<string, unknown> | null {
  const { route, ...shown } = frame as Record<string, unknown> & { route?: OpenRfqRoute };
  // A row written before routes existed reaches everyone and names no taker.
  if (route === undefined) return shown;
  if (!reaches(route, makerAccountId)) return null;
  return { ...shown, taker: pseudonyms.of(makerAccountId, route.taker) };
}
