/**
 * GET /admin/v1/makers/{address}: the maker record with what protects it, its market-maker
 * protection settings (tripped or armed) and its live WebSocket sessions on every node, each
 * saying whether it holds cancel on disconnect, and its dead man's switch.
 */
import { ServiceError } from '../../domain/errors.ts';
import type { ServiceDeps } from '../deps.ts';
import { makerByAddress } from '../../store/maker-registry.ts';
import { normaliseAddress, toMakerView, type MakerView } from '../admin/makers.ts';
import { liveMakerSessions, type LiveSessionView } from './maker-sessions.ts';
import { listProtections, type ProtectionView } from './protection-settings.ts';
import { readCancelAllAfter, type CancelAllAfterView } from './dead-mans-switch.ts';

export interface MakerProtectionView extends MakerView {
  protection: ProtectionView[];
  sessions: LiveSessionView[];
  cancelAllAfter: CancelAllAfterView;
}

export async function readMakerWithProtection(deps: ServiceDeps, rawAddress: string): Promise<MakerProtectionView> {
  const address = normaliseAddress(rawAddress, 'address');
  const row = await makerByAddress(deps.db, address);
  if (!row) throw new ServiceError('NOT_FOUND', 'no maker with this address');
  const [protection, sessions, cancelAllAfter] = await Promise.all([listProtections(deps, row.account_id), liveMakerSessions(deps.db, row.account_id), readCancelAllAfter(deps, row.account_id)]);
  return { ...toMakerView(row, address), protection, sessions, cancelAllAfter };
}
