/**
 * Configuration (DESIGN.md section 7): embedded defaults, production mode refusing with one line
 * per missing setting, bad values, unknown RFQ_* variables, and the production start of
 * `src/runtime/main.ts` refusing with exit code 2 before anything is opened.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { ALL_WORKERS, ConfigError, loadConfig } from '../../src/runtime/config.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const CWD = '/srv/rfq';
const SECRET_KEY = randomBytes(32).toString('base64');
const ADMIN_TOKEN = 'adm_0123456789abcdef0123456789abcdef';
const PRODUCTION = {
  DATABASE_URL: 'postgres://rfq@db.internal:5432/rfq',
  CHAIN_RPC_URL: 'https://rpc.example.org',
  VENUE_URL: 'https://venue.example.org',
  RFQ_ADMIN_TOKEN: ADMIN_TOKEN,
  RFQ_SECRET_KEY: SECRET_KEY,
  RFQ_CUSTODY_KEY: `0x${'ab'.repeat(32)}`,
  RFQ_WRAPPER_FACTORY_ADDRESS: '0x1111111111111111111111111111111111111111',
  RFQ_SIWE_DOMAIN: 'rfq.example.org',
  RFQ_CHAIN_ID: '8453',
  RFQ_VENUE_BUILDER_ADDRESS: '0x2222222222222222222222222222222222222222',
  RFQ_VENUE_OMNIBUS_KEY: `0x${'cd'.repeat(32)}`,
  RFQ_VENUE_AGENT_KEY: `0x${'ef'.repeat(32)}`,
};

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env, CWD);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    assert.ok(error.message.startsWith('invalid configuration:'));
    for (const problem of error.problems) assert.ok(error.message.includes(problem), 'message lists every problem');
    return error.problems;
  }
  assert.fail('expected the configuration to be refused');
}

/** The problems naming `name` (each problem line starts with the variable it is about). */
function about(problems: string[], name: string): string[] {
  return problems.filter((p) => p.startsWith(`${name}:`));
}

describe('config', () => {
  it('refuses a VENUE_URL on the venue\u2019s own host for the other network; other hosts unchecked', () => {
    const mismatch = (url: string, network?: string) => about(problemsOf({ ...PRODUCTION, VENUE_URL: url, ...(network ? { RFQ_VENUE_NETWORK: network } : {}) }), 'VENUE_URL');
    assert.match(mismatch('https://api.hyperliquid-testnet.xyz', 'mainnet')[0] ?? '', /api\.hyperliquid-testnet\.xyz is the venue's testnet API, but RFQ_VENUE_NETWORK is mainnet/);
    assert.equal(mismatch('https://api.hyperliquid.xyz', 'testnet').length, 1);
    assert.equal(mismatch('https://api.hyperliquid-testnet.xyz').length, 1, 'production defaults to mainnet');
    const accepted = (url: string, network: string) => loadConfig({ ...PRODUCTION, VENUE_URL: url, RFQ_VENUE_NETWORK: network }, CWD).venue.network;
    assert.equal(accepted('https://API.hyperliquid.xyz', 'mainnet'), 'mainnet');
    assert.equal(accepted('https://api.hyperliquid-testnet.xyz', 'testnet'), 'testnet');
    assert.equal(accepted('https://venue-proxy.example.org', 'testnet'), 'testnet');
  });
  it('defaults to the embedded stack with no environment', () => {
    const config = loadConfig({}, CWD);
    assert.equal(config.mode, 'embedded');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, path.join(CWD, '.rfq-data'));
    assert.equal(config.databaseUrl, null);
    assert.equal(config.chainRpcUrl, null);
    assert.equal(config.venueUrl, null);
    assert.equal(config.siweDomain, 'localhost');
    assert.equal(config.chainId, 31337);
    assert.equal(config.adminToken, null, 'generated into the data directory at start');
    assert.equal(config.secretKey, null, 'generated into the data directory at start');
    assert.equal(config.demoMakers, true, 'demo makers on in embedded mode');
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.rateLimit, { perKeyPerSec: 100, perSourcePerSec: 1000 });
    assert.deepEqual([...config.workers].sort(), [...ALL_WORKERS].sort(), 'every worker runs by default');
    assert.equal(config.auctionsThread, true, 'auction closes on their own thread (with PostgreSQL) by default');
    assert.equal(config.shutdownGraceMs, 10_000);
    assert.equal(config.databasePoolSize, 10);
    assert.equal(config.http.trustProxy, false, 'X-Forwarded-For is not believed unless a proxy is named');
    assert.equal(config.metricsToken, null, '/metrics is open unless a token is set');
  });

  it('reads RFQ_TRUST_PROXY and RFQ_METRICS_TOKEN, and names what is wrong with them', () => {
    assert.equal(loadConfig({ RFQ_TRUST_PROXY: '2' }, CWD).http.trustProxy, 2);
    assert.deepEqual(loadConfig({ RFQ_TRUST_PROXY: '10.0.0.0/8,loopback' }, CWD).http.trustProxy, ['10.0.0.0/8', 'loopback']);
    assert.equal(loadConfig({ RFQ_TRUST_PROXY: 'off' }, CWD).http.trustProxy, false);
    assert.equal(loadConfig({ RFQ_METRICS_TOKEN: 'metrics-0123456789abcdef' }, CWD).metricsToken, 'metrics-0123456789abcdef');
    assert.match(about(problemsOf({ RFQ_TRUST_PROXY: 'true' }), 'RFQ_TRUST_PROXY')[0]!, /"true" is none of these/);
    assert.match(about(problemsOf({ RFQ_TRUST_PROXY: '10.0.0.0/40' }), 'RFQ_TRUST_PROXY')[0]!, /"10.0.0.0\/40"/);
    assert.match(about(problemsOf({ RFQ_METRICS_TOKEN: 'short' }), 'RFQ_METRICS_TOKEN')[0]!, /at least 16 characters/);
  });

  it('reads the documented variables', () => {
    const config = loadConfig(
      {
        HOST: '0.0.0.0',
        PORT: '9090',
        RFQ_DATA_DIR: 'var/data',
        RFQ_SIWE_DOMAIN: 'rfq.example.org',
        RFQ_CHAIN_ID: '8453',
        RFQ_DEMO_MAKERS: 'false',
        RFQ_WORKERS: 'auctions,dispatch',
        RFQ_RATE_LIMIT_PER_KEY_PER_SEC: '7',
        RFQ_RATE_LIMIT_PER_SOURCE_PER_SEC: '70',
        RFQ_ADMIN_TOKEN: ADMIN_TOKEN,
      },
      CWD,
    );
    assert.equal(config.mode, 'embedded');
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.port, 9090);
    assert.equal(config.dataDir, path.join(CWD, 'var/data'), 'a relative data directory resolves against the working directory');
    assert.equal(config.siweDomain, 'rfq.example.org');
    assert.equal(config.chainId, 8453);
    assert.equal(config.demoMakers, false);
    assert.deepEqual([...config.workers].sort(), ['auctions', 'dispatch']);
    assert.deepEqual(config.rateLimit, { perKeyPerSec: 7, perSourcePerSec: 70 });
    assert.equal(config.adminToken, ADMIN_TOKEN);
    assert.deepEqual([...loadConfig({ RFQ_WORKERS: 'none' }, CWD).workers], [], 'RFQ_WORKERS=none runs an API-only node');
    assert.equal(loadConfig({ RFQ_AUCTIONS_THREAD: '0' }, CWD).auctionsThread, false);
    assert.equal(loadConfig({ RFQ_DATA_DIR: '/abs/dir' }, CWD).dataDir, '/abs/dir');
    assert.equal(loadConfig({ PORT: '' }, CWD).port, 8080, 'an empty variable counts as unset');
  });

  it('production mode (DATABASE_URL set) refuses with one line per missing setting', () => {
    const problems = problemsOf({ DATABASE_URL: PRODUCTION.DATABASE_URL });
    const missing = ['CHAIN_RPC_URL', 'VENUE_URL', 'RFQ_ADMIN_TOKEN', 'RFQ_SECRET_KEY', 'RFQ_CUSTODY_KEY', 'RFQ_WRAPPER_FACTORY_ADDRESS', 'RFQ_VENUE_BUILDER_ADDRESS', 'RFQ_SIWE_DOMAIN', 'RFQ_CHAIN_ID', 'RFQ_VENUE_OMNIBUS_KEY', 'RFQ_VENUE_AGENT_KEY'];
    assert.equal(problems.length, missing.length, problems.join('\n'));
    for (const name of missing) {
      const lines = about(problems, name);
      assert.equal(lines.length, 1, `exactly one line for ${name}: ${problems.join(' | ')}`);
      assert.match(lines[0]!, /required in production mode/);
    }
    // CHAIN_RPC_URL or VENUE_URL alone also selects production mode.
    assert.equal(about(problemsOf({ VENUE_URL: PRODUCTION.VENUE_URL }), 'DATABASE_URL').length, 1);
    assert.equal(about(problemsOf({ CHAIN_RPC_URL: PRODUCTION.CHAIN_RPC_URL }), 'DATABASE_URL').length, 1);
    // An explicit RFQ_MODE=production with nothing set names all twelve.
    assert.equal(problemsOf({ RFQ_MODE: 'production' }).length, 12);
  });

  it('production requires the /v0 omnibus key and its API wallet key, each named on its own line (DESIGN.md section 10)', () => {
    const { RFQ_VENUE_OMNIBUS_KEY: _omnibus, RFQ_VENUE_AGENT_KEY: _agent, ...withoutV0 } = PRODUCTION;
    assert.deepEqual(problemsOf(withoutV0), [
      "RFQ_VENUE_OMNIBUS_KEY: required in production mode (the /v0 omnibus venue account's private key, 0x hex)",
      'RFQ_VENUE_AGENT_KEY: required in production mode (the private key of the API wallet the omnibus approved, 0x hex)',
    ]);
    const { RFQ_VENUE_AGENT_KEY: _a, ...withoutAgent } = PRODUCTION;
    assert.deepEqual(problemsOf(withoutAgent).map((p) => p.split(':')[0]), ['RFQ_VENUE_AGENT_KEY']);
    assert.deepEqual(problemsOf({ ...PRODUCTION, RFQ_VENUE_OMNIBUS_KEY: '0x1234' }), ['RFQ_VENUE_OMNIBUS_KEY: must be a 0x-prefixed 32-byte hex private key']);
    const config = loadConfig(PRODUCTION, CWD);
    assert.equal(config.v0.omnibusKey, PRODUCTION.RFQ_VENUE_OMNIBUS_KEY);
    assert.equal(config.v0.agentKey, PRODUCTION.RFQ_VENUE_AGENT_KEY);
    // Embedded mode generates both when neither is set, and still refuses one without the other.
    assert.equal(loadConfig({}, CWD).v0.omnibusKey, null);
    assert.deepEqual(problemsOf({ RFQ_VENUE_AGENT_KEY: PRODUCTION.RFQ_VENUE_AGENT_KEY }), ['RFQ_VENUE_OMNIBUS_KEY and RFQ_VENUE_AGENT_KEY: set both (the omnibus and its approved API wallet) or neither']);
  });

  it('production refuses an operator token under 32 characters', () => {
    const problems = problemsOf({ ...PRODUCTION, RFQ_ADMIN_TOKEN: 'x'.repeat(31) });
    assert.deepEqual(problems, ['RFQ_ADMIN_TOKEN: must be at least 32 characters in production mode']);
    assert.equal(loadConfig({ ...PRODUCTION, RFQ_ADMIN_TOKEN: 'x'.repeat(32) }, CWD).adminToken, 'x'.repeat(32));
  });

  it('accepts a complete production configuration, with nothing embedded', () => {
    const config = loadConfig(PRODUCTION, CWD);
    assert.equal(config.mode, 'production');
    assert.equal(config.databaseUrl, PRODUCTION.DATABASE_URL);
    assert.equal(config.chainRpcUrl, PRODUCTION.CHAIN_RPC_URL);
    assert.equal(config.venueUrl, PRODUCTION.VENUE_URL);
    assert.equal(config.adminToken, ADMIN_TOKEN);
    assert.equal(config.secretKey, SECRET_KEY);
    assert.equal(config.demoMakers, false, 'no demo makers in production unless asked for');
    assert.deepEqual(config.venue, { network: 'mainnet', builderAddress: PRODUCTION.RFQ_VENUE_BUILDER_ADDRESS, requestTimeoutMs: 2000, metaCacheMs: 60_000, perpResolveWindowMs: 30_000, weightPerMin: 900 });
    assert.equal(loadConfig({}, CWD).venue.network, 'testnet', 'the embedded simulator runs as testnet');
  });

  it('names each bad value, all at once', () => {
    const problems = problemsOf({
      PORT: 'abc',
      RFQ_CHAIN_ID: '0',
      DATABASE_URL: 'not a url',
      CHAIN_RPC_URL: 'ftp://rpc.example.org',
      VENUE_URL: PRODUCTION.VENUE_URL,
      RFQ_WORKERS: 'foo',
      RFQ_ADMIN_TOKEN: 'short',
      RFQ_SECRET_KEY: 'c2hvcnQ=',
      RFQ_DEMO_MAKERS: 'maybe',
      RFQ_RATE_LIMIT_PER_KEY_PER_SEC: '-1',
      RFQ_CUSTODY_KEY: '0x1234',
      RFQ_WRAPPER_FACTORY_ADDRESS: 'factory',
      RFQ_CHAIN_START_BLOCK: 'genesis',
      RFQ_SIWE_DOMAIN: 'rfq.example.org',
      RFQ_VENUE_NETWORK: 'devnet',
      RFQ_VENUE_WEIGHT_PER_MIN: '10',
      RFQ_VENUE_BUILDER_ADDRESS: '0xabc',
      RFQ_VENUE_OMNIBUS_KEY: PRODUCTION.RFQ_VENUE_OMNIBUS_KEY,
      RFQ_VENUE_AGENT_KEY: PRODUCTION.RFQ_VENUE_AGENT_KEY,
    });
    const expect: Array<[string, RegExp]> = [
      ['PORT', /integer from 0 to 65535, got "abc"/],
      ['RFQ_CHAIN_ID', /integer/],
      ['DATABASE_URL', /not a valid URL/],
      ['CHAIN_RPC_URL', /protocol/],
      ['RFQ_WORKERS', /unknown worker "foo"/],
      ['RFQ_VENUE_WEIGHT_PER_MIN', /integer from 60 to 1000000, got "10"/],
      ['RFQ_ADMIN_TOKEN', /at least 16 characters/],
      ['RFQ_SECRET_KEY', /32 bytes/],
      ['RFQ_DEMO_MAKERS', /got "maybe"/],
      ['RFQ_RATE_LIMIT_PER_KEY_PER_SEC', /integer/],
      ['RFQ_CUSTODY_KEY', /32-byte hex private key/],
      ['RFQ_WRAPPER_FACTORY_ADDRESS', /20-byte hex address/],
      ['RFQ_CHAIN_START_BLOCK', /block number or latest/],
      ['RFQ_VENUE_NETWORK', /mainnet or testnet, got "devnet"/],
      ['RFQ_VENUE_BUILDER_ADDRESS', /20-byte hex address/],
    ];
    for (const [name, pattern] of expect) {
      const lines = about(problems, name);
      assert.equal(lines.length, 1, `one line for ${name}: ${problems.join(' | ')}`);
      assert.match(lines[0]!, pattern);
    }
    assert.equal(problems.length, expect.length, problems.join('\n'));
    assert.equal(about(problemsOf({ PORT: '65536' }), 'PORT').length, 1, 'out of range');
    assert.equal(about(problemsOf({ PORT: '80.5' }), 'PORT').length, 1, 'not an integer');
    assert.equal(about(problemsOf({ RFQ_MODE: 'staging' }), 'RFQ_MODE').length, 1);
    assert.equal(about(problemsOf({ RFQ_WORKERS: 'auctions,bogus' }), 'RFQ_WORKERS').length, 1);
  });

  it('refuses an unknown RFQ_* variable by name, so a typo cannot fall back to a default', () => {
    const problems = problemsOf({ RFQ_DEMO_MAKER: '0', RFQ_PORT: '9000' });
    assert.equal(problems.length, 2);
    assert.match(about(problems, 'RFQ_DEMO_MAKER')[0]!, /unknown setting/);
    assert.match(about(problems, 'RFQ_PORT')[0]!, /unknown setting/);
    // Variables outside the RFQ_ prefix are none of its business.
    assert.equal(loadConfig({ PATH: '/usr/bin', NODE_OPTIONS: '--enable-source-maps' }, CWD).mode, 'embedded');
  });

  it('allows RFQ_URL (the admin CLI target) in the same environment as the service', () => {
    assert.equal(loadConfig({ RFQ_URL: 'http://127.0.0.1:8080' }, CWD).mode, 'embedded');
  });

  it('RFQ_MODE=embedded keeps embedded mode with an external DATABASE_URL', () => {
    const config = loadConfig({ RFQ_MODE: 'embedded', DATABASE_URL: PRODUCTION.DATABASE_URL }, CWD);
    assert.equal(config.mode, 'embedded');
    assert.equal(config.databaseUrl, PRODUCTION.DATABASE_URL, 'the external database is used');
    assert.equal(config.adminToken, null, 'secrets are still generated');
    assert.equal(config.demoMakers, true);
  });

  it('returns a frozen configuration', () => {
    const config = loadConfig({}, CWD);
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.rateLimit), 'nested settings are frozen too');
    assert.ok(Object.isFrozen(config.ws));
    assert.throws(() => {
      (config as { port: number }).port = 1;
    }, TypeError);
    assert.throws(() => {
      (config.rateLimit as { perKeyPerSec: number }).perKeyPerSec = 1;
    }, TypeError);
    assert.equal(config.port, 8080);
  });
});

function run(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(NODE, args, { env, cwd, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe('production start (src/runtime/main.ts)', () => {
  it('refuses with exit code 2 and one stderr line per missing setting, touching nothing', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'rfq-main-'));
    try {
      // A clean environment: only what a process needs, plus DATABASE_URL (nothing listens there).
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, DATABASE_URL: 'postgres://rfq@127.0.0.1:1/rfq' };
      const result = await run([path.join(ROOT, 'src/runtime/main.ts')], env, cwd);
      assert.equal(result.code, 2, `exit code 2, got ${result.code}; stderr:\n${result.stderr}`);
      const lines = result.stderr.trim().split('\n');
      assert.match(lines[0]!, /^rfq-service: refusing to start, invalid configuration:$/);
      for (const name of ['CHAIN_RPC_URL', 'VENUE_URL', 'RFQ_ADMIN_TOKEN', 'RFQ_SECRET_KEY', 'RFQ_CUSTODY_KEY', 'RFQ_WRAPPER_FACTORY_ADDRESS', 'RFQ_VENUE_BUILDER_ADDRESS', 'RFQ_SIWE_DOMAIN', 'RFQ_CHAIN_ID', 'RFQ_VENUE_OMNIBUS_KEY', 'RFQ_VENUE_AGENT_KEY']) {
        assert.equal(lines.filter((line) => line.includes(name)).length, 1, `one stderr line for ${name}:\n${result.stderr}`);
      }
      assert.equal(lines.length, 12, `heading plus eleven problems:\n${result.stderr}`);
      assert.equal(lines.filter((line) => line.includes('DATABASE_URL')).length, 0);
      assert.equal(result.stdout, '', 'nothing started, nothing printed');
      assert.deepEqual(await readdir(cwd), [], 'no data directory created in production mode');
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('refuses an unknown RFQ_* variable at start too', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'rfq-main-'));
    try {
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...PRODUCTION, RFQ_ADMIN_TOKNE: 'typo' };
      const result = await run([path.join(ROOT, 'src/runtime/main.ts')], env, cwd);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /RFQ_ADMIN_TOKNE: unknown setting/);
      assert.equal(result.stderr.trim().split('\n').length, 2);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
