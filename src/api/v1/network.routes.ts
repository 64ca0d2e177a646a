/**
 * `GET /v1/rfq/network` (DESIGN.md section 5, "Discovery"): what an integrator needs to settle on
 * this node's chain. `rpcUrl` only where the node publishes one (the embedded devnet); `tokens`
 * only those with an on-chain address; `venue` (network, builder address) where the node has a perp
 * venue. 503 NOT_AVAILABLE on a node without a chain.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../../domain/errors.ts';
import { ErrorEnvelope, EvmAddress, Nullable, TokenSymbol, errorResponses } from '../schemas/common.ts';
import type { ApiContext } from '../context.ts';

export const NetworkInfo = Type.Object({
  chainId: Type.Integer(),
  permit2Address: EvmAddress,
  custodyAddress: EvmAddress,
  wrapperFactoryAddress: EvmAddress,
  xchangeAdapterAddress: Nullable(EvmAddress),
  tokens: Type.Array(Type.Object({ symbol: TokenSymbol, address: EvmAddress, decimals: Type.Integer() })),
  rpcUrl: Type.Optional(Type.String()),
  /**
   * Additive (DESIGN.md 9.5): the perp venue the node executes on, when it has one, and the `/v0`
   * omnibus account there (where a `/v0` user `spotSend`s a deposit; null on a node without `/v0`
   * trading).
   */
  venue: Type.Optional(Type.Object({
    network: Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')]),
    builderAddress: Nullable(EvmAddress),
    omnibusAddress: Nullable(EvmAddress),
    url: Type.Optional(Type.String()),
  })),
});

/** The `/v0` omnibus's venue address; null when the node has no omnibus (its port is the no-venue one, the zero address). */
function omnibusAddressOf(context: ApiContext): string | null {
  const address = context.v0.deps.venue.omnibusAddress;
  return /^0x0{40}$/.test(address) ? null : address;
}

export function networkRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/v1/rfq/network', {
      config: { auth: 'hmac' },
      schema: { summary: 'Chain facts for settling: chain id, custody, contracts, tokens', tags: ['reference'], response: { 200: NetworkInfo, ...errorResponses, 503: ErrorEnvelope } },
    }, async () => {
      const chain = context.chain;
      if (!chain) throw new ServiceError('NOT_AVAILABLE', 'this node settles on no chain');
      const { tokens } = await context.service.refdata.current();
      const s = chain.settings;
      return {
        chainId: chain.chainId,
        permit2Address: s.permit2Address,
        custodyAddress: chain.custodyAddress,
        wrapperFactoryAddress: s.wrapperFactoryAddress,
        xchangeAdapterAddress: s.xchangeAdapterAddress,
        tokens: [...tokens.values()]
          .filter((t) => t.address !== null)
          .sort((a, b) => (a.symbol < b.symbol ? -1 : 1))
          .map((t) => ({ symbol: t.symbol, address: t.address!, decimals: t.decimals })),
        ...(s.publicRpcUrl ? { rpcUrl: s.publicRpcUrl } : {}),
        ...(context.service.venue ? { venue: { network: context.service.venue.network, builderAddress: context.service.venue.builderAddress, omnibusAddress: omnibusAddressOf(context), ...(context.venuePublicUrl ? { url: context.venuePublicUrl } : {}) } } : {}),
      };
    });
  };
}
