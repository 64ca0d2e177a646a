/** Every route plugin beyond ops and auth, in registration order. */
import type { FastifyInstance } from 'fastify';
import type { NodeContext } from './node-context.ts';
import { accountRoutes } from '../api/v1/account.routes.ts';
import { adminRoutes } from '../api/admin/admin.routes.ts';
import { rfqRoutes } from '../api/v1/rfq.routes.ts';
import { makerRoutes } from '../api/v1/maker.routes.ts';
import { wsRoutes } from '../ws/ws.routes.ts';
import { networkRoutes } from '../api/v1/network.routes.ts';
import { devnetRoutes } from '../api/admin/devnet.routes.ts';
import { fundsRoutes } from '../api/v1/funds.routes.ts';
import { adminFundsRoutes } from '../api/admin/funds.routes.ts';
import { adminRfqRoutes } from '../api/admin/rfqs.routes.ts';
import { adminReadRoutes } from '../api/admin/reads.routes.ts';
import { consoleRoutes } from '../api/admin/console.routes.ts';
import { v0Routes } from '../api/v0/v0.routes.ts';
import { adminV0Routes } from '../api/admin/v0.routes.ts';
import { protectionRoutes } from '../api/v1/protection.routes.ts';
import { counterpartyRoutes } from '../api/v1/counterparty.routes.ts';
import { adminMakerProtectionRoutes } from '../api/admin/maker-protection.routes.ts';

export function routePlugins(context: NodeContext): Array<(app: FastifyInstance) => Promise<void>> {
  return [accountRoutes(context), rfqRoutes(context), makerRoutes(context), adminRoutes(context), wsRoutes(context), networkRoutes(context), devnetRoutes(context), fundsRoutes(context), adminFundsRoutes(context),
    adminRfqRoutes(context), adminReadRoutes(context), consoleRoutes(context), adminV0Routes(context), v0Routes(context),
    protectionRoutes(context), adminMakerProtectionRoutes(context), counterpartyRoutes(context)];
}
