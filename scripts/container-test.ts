// Builds the image from Containerfile with podman and runs it in production mode against this
// machine's PostgreSQL, an anvil devnet with the contracts deployed and the venue simulator,
// until /readyz answers, its HEALTHCHECK passes and one signed request succeeds.
//
//   node scripts/container-test.ts                                  # bases built with mmdebstrap
//   node scripts/container-test.ts --base node:24-slim --build-base node:24-slim
//
// No image registry is needed: unless --base/--build-base name images, the bases are Debian
// bookworm made with mmdebstrap and imported into podman (the build base adds Debian's npm to
// run `npm ci`). Needs podman, mmdebstrap, and PostgreSQL at CONTAINER_TEST_DATABASE_URL
// (default postgres://postgres@127.0.0.1:5432/postgres, used to create and drop one database).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startDevnetStack } from '../src/chain/devnet-stack.ts';
import { RfqClient } from '../src/client/rfq-client.ts';
import { startVenueSim } from '../sim/venue/index.ts';
import { VenueSimControl } from '../sim/venue/control.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    'build-base': { type: 'string' },
    tag: { type: 'string', default: 'localhost/rfq-service:test' },
  },
});
const ADMIN_URL = process.env.CONTAINER_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Bounds: the build fetches npm packages; a start runs every migration on an empty database. */
const BUILD_TIMEOUT_MS = 20 * 60_000;
const READY_TIMEOUT_MS = 180_000;
const CHAIN_ID = 31337;
const SIWE_DOMAIN = 'localhost';

const log = (line: string) => process.stdout.write(`container-test: ${line}\n`);

/** Runs `cmd`; the command line is logged with every `-e NAME=value` shown as `-e NAME` (secrets). */
function run(cmd: string, args: string[], timeoutMs = 120_000): string {
  log(`$ ${cmd} ${args.map((a, i) => (args[i - 1] === '-e' ? a.split('=')[0] : a)).join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args[0]} failed (status ${r.status}, ${r.error?.message ?? 'no error'})`);
  return r.stdout;
}

const imageExists = (name: string) => spawnSync('podman', ['image', 'exists', name]).status === 0;

/** A Debian bookworm base from mmdebstrap, imported into podman once and reused. */
function debianBase(name: string, packages: string[]): string {
  if (imageExists(name)) return name;
  log(`mmdebstrap bookworm (${packages.join(', ')}) -> ${name}`);
  // bash, not sh: Debian bookworm's dash has no pipefail, and a failed `set` ends its shell.
  run('bash', ['-o', 'pipefail', '-c', `mmdebstrap --variant=minbase --include=${packages.join(',')} bookworm - | podman import --change 'CMD ["/bin/bash"]' - ${name}`], BUILD_TIMEOUT_MS);
  return name;
}

/**
 * The build base, trusting what this machine's Node.js trusts (NODE_EXTRA_CA_CERTS), so `npm ci`
 * in the build works behind a TLS-inspecting proxy as it does here. A local test layer only: the
 * Containerfile itself bakes in no certificate.
 */
function withHostTrust(buildBase: string): string {
  const bundle = process.env.NODE_EXTRA_CA_CERTS;
  if (!bundle) return buildBase;
  const dir = mkdtempSync(join(tmpdir(), 'rfq-build-base-'));
  try {
    copyFileSync(bundle, join(dir, 'host-ca.crt'));
    writeFileSync(join(dir, 'Containerfile'), `FROM ${buildBase}\nCOPY host-ca.crt /etc/host-ca.crt\nENV NODE_EXTRA_CA_CERTS=/etc/host-ca.crt\n`);
    const name = `${buildBase}-host-ca`;
    run('podman', ['build', '--isolation=chroot', '-t', name, dir], BUILD_TIMEOUT_MS);
    return name;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function eventually<T>(what: string, timeoutMs: number, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms (${String(last)})`);
}

type Cleanup = () => Promise<unknown> | unknown;

/**
 * Runs the image with `podman run` and returns its health check. Where podman cannot start a
 * container (its OCI runtimes need cgroups and rlimits this machine refuses: see the error it
 * prints), the same image runs under `buildah run --isolation=chroot` instead, as the image's
 * user with its entrypoint, and the health check is the image's HEALTHCHECK command run beside it.
 */
function startContainer(image: string, name: string, env: Record<string, string>, cleanups: Cleanup[]): () => void {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  log(`$ podman run -d --name ${name} --network=host ${image}`);
  const podman = spawnSync('podman', ['run', '-d', '--name', name, '--network=host', ...envArgs, image], { encoding: 'utf8', timeout: 120_000 });
  if (podman.status === 0) {
    cleanups.push(() => {
      spawnSync('podman', ['logs', '--tail', '40', name], { stdio: 'inherit' });
      spawnSync('podman', ['rm', '-f', '-t', '5', name], { stdio: 'inherit' });
    });
    return () => run('podman', ['healthcheck', 'run', name]);
  }
  spawnSync('podman', ['rm', '-f', name], { stdio: 'ignore' });
  log(`podman run failed here: ${podman.stderr.trim()}`);
  log('running the image with buildah run --isolation=chroot instead');
  const config = JSON.parse(run('podman', ['image', 'inspect', '--format', '{{json .Config}}', image])) as {
    User: string; Entrypoint: string[]; WorkingDir: string;
  };
  const healthcheck = JSON.parse(run('podman', ['image', 'inspect', '--format', '{{json .Config.Healthcheck}}', image])) as { Test: string[] } | null;
  const working = run('buildah', ['from', '--name', name, image]).trim();
  cleanups.push(() => spawnSync('buildah', ['rm', working], { stdio: 'inherit' }));
  const chrootRun = ['run', '--isolation=chroot', '--network=host', '--user', config.User, '--workingdir', config.WorkingDir, ...envArgs, working, '--'];
  const node = spawn('buildah', [...chrootRun, ...config.Entrypoint], { stdio: ['ignore', 'inherit', 'inherit'] });
  cleanups.push(() => new Promise((resolve) => {
    if (node.exitCode !== null) return resolve(undefined);
    node.once('exit', resolve);
    node.kill('SIGTERM');
  }));
  const test = healthcheck?.Test ?? [];
  if (test[0] !== 'CMD') throw new Error(`the image has no exec-form HEALTHCHECK: ${JSON.stringify(test)}`);
  return () => run('buildah', [...chrootRun, ...test.slice(1)]);
}

async function main(): Promise<void> {
  if (spawnSync('podman', ['info'], { stdio: 'ignore' }).status !== 0) throw new Error('podman info fails: podman cannot run here');
  const base = values.base ?? debianBase('localhost/rfq-base:bookworm', ['passwd', 'ca-certificates']);
  const buildBase = withHostTrust(values['build-base'] ?? debianBase('localhost/rfq-build:bookworm', ['passwd', 'ca-certificates', 'npm']));
  // docker format: the OCI image format has no HEALTHCHECK. chroot isolation: RUN steps need no OCI
  // runtime (crun refuses this machine's hybrid cgroups).
  run('podman', ['build', '--format=docker', '--isolation=chroot', '--network=host', '--build-arg', `BASE_IMAGE=${base}`, '--build-arg', `BUILD_IMAGE=${buildBase}`, '-f', 'Containerfile', '-t', values.tag!, '.'], BUILD_TIMEOUT_MS);
  const user = run('podman', ['image', 'inspect', '--format', '{{.Config.User}}', values.tag!]).trim();
  if (user === '' || user.startsWith('0') || user.startsWith('root')) throw new Error(`the image runs as ${JSON.stringify(user)}, not a non-root user`);

  const database = `rfq_container_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const cleanups: Cleanup[] = [async () => { await admin.query(`drop database if exists ${database} with (force)`); await admin.end(); }];
  const container = `rfq-container-test-${process.pid}`;
  try {
    const custodyKey = generatePrivateKey();
    const chain = await startDevnetStack({ custodyKey, deployerKey: generatePrivateKey(), tokens: [{ symbol: 'USDC', decimals: 6 }] });
    cleanups.push(() => chain.stop());
    const venue = await startVenueSim();
    cleanups.push(() => venue.stop());
    // A production node is ready only once its builder holds the venue's minimum for approving
    // builder fees (100 USDC of perps account value), as on the real venue.
    const builder = privateKeyToAccount(generatePrivateKey()).address;
    await new VenueSimControl(venue.url).fund({ user: builder, account: 'perp', token: 'USDC', amount: '100' });
    const databaseUrl = new URL(ADMIN_URL);
    databaseUrl.pathname = `/${database}`;
    const port = 18000 + (process.pid % 1000);
    const env: Record<string, string> = {
      PORT: String(port),
      DATABASE_URL: databaseUrl.toString(),
      CHAIN_RPC_URL: chain.devnet.rpcUrl,
      RFQ_CHAIN_ID: String(CHAIN_ID),
      RFQ_SIWE_DOMAIN: SIWE_DOMAIN,
      RFQ_CUSTODY_KEY: custodyKey,
      RFQ_WRAPPER_FACTORY_ADDRESS: chain.deployed.wrapperFactoryAddress,
      RFQ_CHAIN_CONFIRMATIONS: '1',
      VENUE_URL: venue.url,
      RFQ_VENUE_BUILDER_ADDRESS: builder,
      RFQ_VENUE_OMNIBUS_KEY: generatePrivateKey(),
      RFQ_VENUE_AGENT_KEY: generatePrivateKey(),
      RFQ_ADMIN_TOKEN: randomBytes(24).toString('hex'),
      RFQ_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    const healthcheck = startContainer(values.tag!, container, env, cleanups);
    const url = `http://127.0.0.1:${port}`;
    const ready = await eventually('/readyz 200', READY_TIMEOUT_MS, async () => {
      const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3000) });
      const text = await r.text();
      // Thrown, so that a timeout names the last reason the node gave for not being ready.
      if (!r.ok) throw new Error(`${r.status} ${text}`);
      return text;
    });
    log(`/readyz: ${ready}`);
    healthcheck();
    log('HEALTHCHECK passes');
    const client = new RfqClient(url);
    await client.signIn(privateKeyToAccount(generatePrivateKey()), { domain: SIWE_DOMAIN, chainId: CHAIN_ID });
    const balances = await client.balances();
    log(`signed GET /v1/rfq/balances: ${JSON.stringify(balances)}`);
    log('ok');
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`container-test: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
