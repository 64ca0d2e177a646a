/**
 * Runs the reference maker against a running service until Ctrl-C:
 *
 *   MAKER_PRIVATE_KEY=0x... RFQ_URL=http://127.0.0.1:8080 node_modules/.bin/node examples/maker/run.ts
 *
 * Settings (environment): RFQ_URL, MAKER_PRIVATE_KEY (required), MAKER_SPREAD_BP (default 10),
 * MAKER_SEED (default 1), MAKER_TICK_MS (default 1000), CHAIN_RPC_URL (default: the rpcUrl the
 * service publishes in the embedded stack), RFQ_SIWE_DOMAIN, RFQ_CHAIN_ID, MAKER_COOLDOWN_MS (default
 * 30000: how long market-maker protection pauses an instrument before the reset),
 * MAKER_CANCEL_ON_DISCONNECT (default true), MAKER_ALIAS (a public alias takers may name or exclude;
 * default none: anonymous).
 */
import type { Hex } from 'viem';
import { ReferenceMaker } from './maker.ts';

const env = process.env;
const privateKey = env.MAKER_PRIVATE_KEY as Hex | undefined;
if (!privateKey) {
  process.stderr.write('MAKER_PRIVATE_KEY is required (the key of a maker the operator registered)\n');
  process.exit(2);
}
const spreadBp = Number(env.MAKER_SPREAD_BP ?? '10');

const maker = new ReferenceMaker({
  baseUrl: env.RFQ_URL ?? 'http://127.0.0.1:8080',
  privateKey,
  seed: Number(env.MAKER_SEED ?? '1'),
  tickMs: Number(env.MAKER_TICK_MS ?? '1000'),
  cancelOnDisconnect: env.MAKER_CANCEL_ON_DISCONNECT !== 'false',
  protectionCoolDownMs: Number(env.MAKER_COOLDOWN_MS ?? '30000'),
  ...(env.MAKER_ALIAS ? { alias: env.MAKER_ALIAS } : {}),
  ...(env.CHAIN_RPC_URL ? { rpcUrl: env.CHAIN_RPC_URL } : {}),
  ...(env.RFQ_SIWE_DOMAIN ? { siweDomain: env.RFQ_SIWE_DOMAIN } : {}),
  ...(env.RFQ_CHAIN_ID ? { chainId: Number(env.RFQ_CHAIN_ID) } : {}),
  instruments: [
    // Market-maker protection: at most 10 selections or 300,000 USDC of them per 10 s on each.
    { instrumentId: 'ETH-USDC-SPOT', referencePrice: '3000', spreadBp, maxBaseQty: '50', levelSize: '5', protection: { windowMs: 10_000, maxSelectedQuotes: 10, maxSelectedNotional: '300000' } },
    { instrumentId: 'BTC-USDC-SPOT', referencePrice: '60000', spreadBp, maxBaseQty: '2', levelSize: '0.25', protection: { windowMs: 10_000, maxSelectedQuotes: 10, maxSelectedNotional: '300000' } },
  ],
});

await maker.start();
const stop = async () => {
  await maker.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
