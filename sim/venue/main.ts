// `npm run venue-sim -- --data-dir DIR --port N [--host H] [--seed S] [--network mainnet|testnet] [--profile fast|realistic] [--latency-ms MS]`
import { parseArgs } from 'node:util';
import { startVenueSim } from './index.ts';
import { isProfileName, resolveProfile } from './profile.ts';
import { READY_PREFIX } from './ready.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    network: { type: 'string', default: 'mainnet' },
    profile: { type: 'string', default: process.env.RFQ_VENUE_SIM_PROFILE ?? 'fast' },
    /** A fixed latency instead of the profile's distribution (benchmarks). */
    'latency-ms': { type: 'string' },
  },
  strict: true,
});

const port = Number(values.port);
const seed = Number(values.seed);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
if (values.network !== 'mainnet' && values.network !== 'testnet') throw new Error('--network must be mainnet or testnet');
if (!isProfileName(values.profile)) throw new Error(`--profile must be fast or realistic, got ${values.profile}`);
const latencyMs = values['latency-ms'] === undefined ? null : Number(values['latency-ms']);
if (latencyMs !== null && (!Number.isInteger(latencyMs) || latencyMs < 0 || latencyMs > 60_000)) throw new Error(`--latency-ms must be 0..60000, got ${values['latency-ms']}`);

const sim = await startVenueSim({
  dataDir: values['data-dir'] ?? null,
  port,
  host: values.host,
  seed,
  config: { network: values.network },
  profile: resolveProfile(values.profile, latencyMs === null ? {} : { latency: { minMs: latencyMs, maxMs: latencyMs, tailProbability: 0, tailMs: 0 } }),
});
// The launcher reads this line to learn the URL (the port may have been 0).
process.stdout.write(`${READY_PREFIX}${sim.url}\n`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    sim.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
