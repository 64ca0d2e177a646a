/**
 * `npm run v0 -- <operation> [field=value ...]`: signs in to `/v0` with a wallet key and runs one
 * operation, printing the JSON answer. Examples:
 *   npm run v0 -- getMarkets
 *   npm run v0 -- getBalances --key 0x<private key>
 *   npm run v0 -- createOrder side=buy orderType=limit baseToken=HYPE quoteToken=USDC amount=1 price=41 --key 0x...
 * Target: RFQ_URL (default http://127.0.0.1:8080); key: --key or RFQ_V0_KEY; layout: --layout.
 * The SIWE domain and chain id are RFQ_SIWE_DOMAIN / RFQ_CHAIN_ID (defaults localhost / 31337).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage, generateSiweNonce } from 'viem/siwe';

const STATEMENT = 'Sign in with Ethereum to the app.';
const PUBLIC = new Set(['getTokens', 'getMarkets']);

export interface V0CliArgs { operation: string; fields: Record<string, unknown>; key: string | null; layout: string | null }

export function parseV0Args(argv: string[], env: Record<string, string | undefined>): V0CliArgs {
  const [operation, ...rest] = argv;
  if (!operation) throw new Error('usage: npm run v0 -- <operation> [field=value ...] [--key 0x...] [--layout wrapped|flat]');
  const fields: Record<string, unknown> = {};
  let key = env.RFQ_V0_KEY ?? null;
  let layout: string | null = null;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--key') key = rest[++i] ?? null;
    else if (arg === '--layout') layout = rest[++i] ?? null;
    else {
      const eq = arg.indexOf('=');
      if (eq < 1) throw new Error(`expected field=value, got ${arg}`);
      const name = arg.slice(0, eq);
      const value = arg.slice(eq + 1);
      // Numbers stay strings (amounts are decimal strings) except the fields the spec types as numbers.
      fields[name] = ['limit', 'createdAfter', 'createdBefore'].includes(name) ? Number(value) : name === 'orderIds' ? value.split(',') : value;
    }
  }
  return { operation, fields, key, layout };
}

async function post(url: string, body: Record<string, unknown>, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/v0`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

export async function runV0Cli(argv: string[], env: Record<string, string | undefined>, print: (line: string) => void): Promise<number> {
  const args = parseV0Args(argv, env);
  const url = (env.RFQ_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
  const headers: Record<string, string> = args.layout ? { 'v0-layout': args.layout } : {};
  if (!PUBLIC.has(args.operation)) {
    if (!args.key) throw new Error('this operation needs a wallet key: --key 0x... or RFQ_V0_KEY');
    const account = privateKeyToAccount(args.key as `0x${string}`);
    const message = createSiweMessage({ domain: env.RFQ_SIWE_DOMAIN ?? 'localhost', address: account.address, statement: STATEMENT, uri: `${url}/v0`, version: '1', chainId: Number(env.RFQ_CHAIN_ID ?? 31337), nonce: generateSiweNonce(), issuedAt: new Date() });
    const login = await post(url, { operation: 'login', message, signature: await account.signMessage({ message }) }, { 'v0-layout': 'flat' });
    if (login.status !== 200) {
      print(JSON.stringify(login.json, null, 2));
      return 1;
    }
    if (args.operation === 'login') {
      print(JSON.stringify(login.json, null, 2));
      return 0;
    }
    headers.authorization = `Bearer ${String(login.json.token)}`;
  }
  const reply = await post(url, { operation: args.operation, ...args.fields }, headers);
  print(JSON.stringify(reply.json, null, 2));
  return reply.status === 200 ? 0 : 1;
}

// Run as a script, also through a symlinked path (import.meta.url is the resolved file).
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  try {
    process.exitCode = await runV0Cli(process.argv.slice(2), process.env, (line) => process.stdout.write(`${line}\n`));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 2;
  }
}
