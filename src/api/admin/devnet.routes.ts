/**
 * `POST /admin/v1/devnet/faucet` (DESIGN.md section 5, "Discovery"): mints test tokens on-chain to
 * any address and answers once the mint is mined. Only in the embedded stack, whose chain is a
 * devnet whose tokens the faucet key owns; anywhere else it is 503 NOT_AVAILABLE.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getAddress, type Address } from 'viem';
import { ServiceError } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money/index.ts';
import { EvmAddress, PositiveDecimalString, TokenSymbol, ErrorEnvelope, errorResponses } from '../schemas/common.ts';
import type { ApiContext } from '../context.ts';

export function devnetRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/admin/v1/devnet/venue-faucet', {
      config: { auth: 'admin' },
      schema: {
        summary: 'Embedded stack only: credit perp margin (USDC) or a spot token at the venue simulator',
        tags: ['admin'],
        body: Type.Object({
          address: EvmAddress,
          token: Type.String({ minLength: 1, maxLength: 32 }),
          amount: PositiveDecimalString,
          account: Type.Union([Type.Literal('perp'), Type.Literal('spot')]),
        }, { additionalProperties: false }),
        response: { 200: Type.Object({ address: EvmAddress, account: Type.String(), token: Type.String(), amount: Type.String() }), ...errorResponses, 503: ErrorEnvelope },
      },
    }, async (request) => {
      const faucet = context.venueFaucet;
      if (!faucet) throw new ServiceError('NOT_AVAILABLE', 'the venue faucet exists only in the embedded stack, whose venue is the simulator');
      const { account, token, amount } = request.body;
      const address = getAddress(request.body.address);
      await faucet({ address, account, token, amount });
      return { address, account, token, amount };
    });
    app.post('/admin/v1/devnet/faucet', {
      config: { auth: 'admin' },
      schema: {
        summary: 'Embedded devnet only: mint test tokens on-chain',
        tags: ['admin'],
        body: Type.Object({ address: EvmAddress, token: TokenSymbol, amount: PositiveDecimalString }, { additionalProperties: false }),
        response: { 200: Type.Object({ txHash: Type.String() }), ...errorResponses, 503: ErrorEnvelope },
      },
    }, async (request) => {
      const faucet = context.devnetFaucet;
      if (!faucet) {
        throw new ServiceError('NOT_AVAILABLE', 'the faucet exists only in the embedded devnet stack');
      }
      const token = (await context.service.refdata.current()).tokens.get(request.body.token);
      if (!token) throw new ServiceError('TOKEN_NOT_FOUND', `no token ${request.body.token}`);
      if (token.address === null) throw new ServiceError('TOKEN_NOT_FOUND', `${request.body.token} has no on-chain address`, { reason: 'noAddress' });
      const raw = parseAmount(request.body.amount, token.decimals, { field: 'amount', positive: true });
      const txHash = await faucet({ token: token.address as Address, to: getAddress(request.body.address), raw });
      return { txHash };
    });
  };
}
