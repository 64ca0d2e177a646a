/**
 * `npm run v0 -- <operation> [field=value ...]`: signs in to `/v0` with a wallet key and runs one
 * operation, printing the JSON answer; and `deposit`, which funds `/v0` the way a user does: a
 * venue `spotSend` from the wallet to the omnibus, then waits until `/v0` credits it. Usage: USAGE.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ExchangeClient, HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage, generateSiweNonce } from 'viem/siwe';
import { formatAmount, parseAmount } from '../domain/money/index.ts';

export const V0_USAGE = `usage: npm run v0 -- <operation> [field=value ...] [--key 0x..] [--layout wrapped|flat]
       npm run v0 -- deposit token=USDC amount=100 --omnibus 0x.. --venue-url URL [--network mainnet|testnet] [--key 0x..]

  <operation>  a /v0 operation (docs/v0-reference.md): getTokens, getMarkets, getBalances,
               createOrder, cancelOrder, listDelegatedOrders, listFills, getFees,
               initiateWithdrawal, getUserWithdrawals, ...; fields as name=value
               (amounts and prices are decimal strings; orderIds=a,b is a list)
  deposit      fund your /v0 balance as a user does: spotSend <amount> of <token> from your
               venue account to the omnibus (--omnibus, the ready banner's "/v0 omnibus"), at
               the venue (--venue-url; --network, default testnet as the embedded stack's), then
               wait until /v0 credits it (at most 60 s)

  --key 0x..   the wallet key (env RFQ_V0_KEY); getTokens and getMarkets need none
  --layout L   wrapped or flat (the server's default otherwise)
  -h, --help   this help

  env: RFQ_URL (default http://127.0.0.1:8080); RFQ_SIWE_DOMAIN / RFQ_CHAIN_ID for the sign-in
       (defaults localhost / 31337)
exit status: 0 ok, 1 refused by the service or the venue, 2 usage
`;

const STATEMENT = 'Sign in with Ethereum to the app.';
const PUBLIC = new Set(['getTokens', 'getMarkets']);

export interface V0CliArgs {
  operation: string;
  fields: Record<string, unknown>;
  key: string | null;
  layout: string | null;
  /** `deposit` only. */
  omnibus: string | null;
  venueUrl: string | null;
  network: string;
}

/** A command line the CLI cannot run: usage printed, exit status 2. */
export class V0UsageError extends Error {}

export function parseV0Args(argv: string[], env: Record<string, string | undefined>): V0CliArgs {
  const [operation, ...rest] = argv;
  if (!operation) throw new V0UsageError(V0_USAGE);
  const fields: Record<string, unknown> = {};
  let key = env.RFQ_V0_KEY ?? null;
  let layout: string | null = null;
  let omnibus: string | null = null;
  let venueUrl: string | null = null;
  let network = 'testnet';
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--key') key = rest[++i] ?? null;
    else if (arg === '--layout') layout = rest[++i] ?? null;
    else if (arg === '--omnibus') omnibus = rest[++i] ?? null;
    else if (arg === '--venue-url') venueUrl = rest[++i] ?? null;
    else if (arg === '--network') network = rest[++i] ?? '';
    else if (arg.startsWith('-')) throw new V0UsageError(`unknown option ${arg}\n${V0_USAGE}`);
    else {
      const eq = arg.indexOf('=');
      if (eq < 1) throw new Error(`expected field=value, got ${arg}`);
      const name = arg.slice(0, eq);
      const value = arg.slice(eq + 1);
      // Numbers stay strings (amounts are decimal strings) except the fields the spec types as numbers.
      fields[name] = ['limit', 'createdAfter', 'createdBefore'].includes(name) ? Number(value) : name === 'orderIds' ? value.split(',') : value;
    }
  }
  if (network !== 'mainnet' && network !== 'testnet') throw new V0UsageError(`--network must be mainnet or testnet, got ${JSON.stringify(network)}`);
  return { operation, fields, key, layout, omnibus, venueUrl, network };
}

async function post(url: string, body: Record<string, unknown>, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/v0`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** Signs in to `/v0` (SIWE); the JWT, or the refusal's answer. */
async function signIn(url: string, account: PrivateKeyAccount, env: Record<string, string | undefined>): Promise<{ token: string; answer: Record<string, unknown> } | { refused: Record<string, unknown> }> {
  const message = createSiweMessage({ domain: env.RFQ_SIWE_DOMAIN ?? 'localhost', address: account.address, statement: STATEMENT, uri: `${url}/v0`, version: '1', chainId: Number(env.RFQ_CHAIN_ID ?? 31337), nonce: generateSiweNonce(), issuedAt: new Date() });
  const login = await post(url, { operation: 'login', message, signature: await account.signMessage({ message }) }, { 'v0-layout': 'flat' });
  return login.status === 200 ? { token: String(login.json.token), answer: login.json } : { refused: login.json };
}

function walletOf(args: V0CliArgs): PrivateKeyAccount {
  if (!args.key) throw new V0UsageError('this operation needs a wallet key: --key 0x... or RFQ_V0_KEY');
  if (!/^0x[0-9a-fA-F]{64}$/.test(args.key)) throw new V0UsageError('the wallet key must be 0x followed by 64 hex digits');
  return privateKeyToAccount(args.key as `0x${string}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `/v0` balance of one token, in units of `decimals`. */
async function v0Total(url: string, token: string, symbol: string, decimals: number): Promise<bigint> {
  const reply = await post(url, { operation: 'getBalances' }, { authorization: `Bearer ${token}`, 'v0-layout': 'flat' });
  // `total` is an integer in the service's units; `totalFloat` the human decimal.
  const balances = (reply.json.balances ?? []) as Array<{ token: string; totalFloat: string }>;
  const total = balances.find((b) => b.token === symbol)?.totalFloat ?? '0';
  return parseAmount(total, decimals, { field: 'total' });
}

/** `deposit`: spotSend from the wallet to the omnibus at the venue, then wait for the `/v0` credit. */
async function deposit(url: string, args: V0CliArgs, env: Record<string, string | undefined>, print: (line: string) => void): Promise<number> {
  const symbol = args.fields.token;
  const amount = args.fields.amount;
  if (typeof symbol !== 'string' || typeof amount !== 'string') throw new V0UsageError(`deposit needs token=SYMBOL amount=N\n${V0_USAGE}`);
  if (!args.omnibus || !/^0x[0-9a-fA-F]{40}$/.test(args.omnibus)) throw new V0UsageError('deposit needs --omnibus 0x<the /v0 omnibus address> (the ready banner prints it)');
  if (!args.venueUrl) throw new V0UsageError('deposit needs --venue-url URL (the venue the service trades on; the ready banner\'s "venue" line)');
  const account = walletOf(args);
  const session = await signIn(url, account, env);
  if ('refused' in session) {
    print(JSON.stringify(session.refused, null, 2));
    return 1;
  }
  const transport = new HttpTransport({ apiUrl: args.venueUrl, isTestnet: args.network === 'testnet', timeout: 10_000 });
  const listed = (await new InfoClient({ transport }).spotMeta()).tokens.find((t) => t.name === symbol);
  if (!listed) throw new V0UsageError(`the venue lists no spot token ${symbol}`);
  const decimals = listed.weiDecimals;
  const raw = parseAmount(amount, decimals, { field: 'amount', positive: true });
  const before = await v0Total(url, session.token, symbol, decimals);
  try {
    await new ExchangeClient({ transport, wallet: account }).spotSend({ destination: args.omnibus, token: `${symbol}:${listed.tokenId}`, amount });
  } catch (error) {
    // The venue's refusal names what it expected (its network, the balance ...).
    print(JSON.stringify({ operation: 'deposit', error: `the venue refused the spotSend (signed for ${args.network}): ${(error as Error).message}` }, null, 2));
    return 1;
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const total = await v0Total(url, session.token, symbol, decimals);
    if (total >= before + raw) {
      print(JSON.stringify({ operation: 'deposit', token: symbol, amount, from: account.address, to: args.omnibus, credited: true, total: formatAmount(total, decimals) }, null, 2));
      return 0;
    }
    if (Date.now() > deadline) {
      print(JSON.stringify({ operation: 'deposit', token: symbol, amount, credited: false, error: 'sent, but /v0 had not credited it after 60 s: getBalances later shows it' }, null, 2));
      return 1;
    }
    await sleep(250);
  }
}

export async function runV0Cli(argv: string[], env: Record<string, string | undefined>, print: (line: string) => void): Promise<number> {
  if (argv[0] === '-h' || argv[0] === '--help' || argv[0] === 'help') {
    print(V0_USAGE.trimEnd());
    return 0;
  }
  const args = parseV0Args(argv, env);
  const url = (env.RFQ_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
  if (args.operation === 'deposit') return deposit(url, args, env, print);
  const headers: Record<string, string> = args.layout ? { 'v0-layout': args.layout } : {};
  if (!PUBLIC.has(args.operation)) {
    const session = await signIn(url, walletOf(args), env);
    if ('refused' in session) {
      print(JSON.stringify(session.refused, null, 2));
      return 1;
    }
    if (args.operation === 'login') {
      print(JSON.stringify(session.answer, null, 2));
      return 0;
    }
    headers.authorization = `Bearer ${session.token}`;
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
