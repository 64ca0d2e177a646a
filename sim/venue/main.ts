// `npm run venue-sim -- --data-dir DIR --port N [--host H] [--seed S] [--network mainnet|testnet]`
import { parseArgs } from 'node:util';
import { startVenueSim } from './index.ts';
import { READY_PREFIX } from './ready.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    network: { type: 'string', default: 'mainnet' },
  },
  strict: true,
});

const port = Number(values.port);
const seed = Number(values.seed);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
if (values.network !== 'mainnet' && values.network !== 'testnet') throw new Error('--network must be mainnet or testnet');

const sim = await startVenueSim({
  dataDir: values['data-dir'] ?? null,
  port,
  host: values.host,
  seed,
  config: { network: values.network },
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
