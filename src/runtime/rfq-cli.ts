/**
 * `npm run rfq -- <command> ...`: the taker CLI over the v1 API (RfqClient, the WebSocket
 * session, REST as fallback). Human output by default; `--json` prints exactly one JSON document
 * on stdout (the result, or `{ "error": ... }`). Failures also print `error: CODE: message` on
 * stderr. Exit status: 0 ok (a trade SETTLED), 1 refused or failed call, 2 usage or not logged
 * in, 3 the RFQ ended FAILED or CANCELLED.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { privateKeyToAccount } from 'viem/accounts';
import { ApiError } from '../client/http.ts';
import { RfqClient } from '../client/rfq-client.ts';
import type { RfqStatus, Side, Withdrawal } from '../client/types.ts';
import { credentialsPath, DEFAULT_CREDENTIALS_FILE, readCredential, removeCredential, writeCredential, type SavedCredential } from './cli-credentials.ts';
import { balancesTable, instrumentsTable, ledgerTable, outcome, rfqSummary, tradesTable } from './rfq-cli-format.ts';
import { acceptAndFollow, FollowTimeout, followRfq, trade, type TradeResult } from './rfq-cli-trade.ts';
import { demoTakerKey, NoWalletKey, perpTakerFor, walletKeyFor } from './rfq-cli-perp.ts';
import { depositCredited, DepositError, depositToCustody } from './rfq-cli-funds.ts';
import { isPerpInstrument } from '../client/perp-order.ts';

const USAGE = `usage: npm run rfq -- [global options] <command> ...

commands:
  login --private-key 0x..            sign in with a wallet key (SIWE); or set RFQ_PRIVATE_KEY
        [--expires-in SECS] [--siwe-domain localhost] [--chain-id 31337]
  login --access-key ak_.. --secret S use an existing key pair (e.g. the demo taker that
                                      \`npm start\` prints); or set RFQ_ACCESS_KEY / RFQ_SECRET
  logout                              revoke the remembered key and delete the credential file
  balances                            available / locked / total per token and rail
  instruments                         tradable instruments and taker fees
  makers                              the disclosed makers' aliases, for --makers / --exclude-makers
  ledger [--limit N] [--cursor C]     ledger entries, newest first
  trades [--limit N] [--cursor C] [--status S]
                                      your RFQs, newest first, each with its outcome (paid and
                                      received, the failure code, or open)
  deposit <amount> <TOKEN> [--follow] [--private-key 0x..] [--rpc-url URL]
                                      send <amount> of TOKEN from your wallet to the service's
                                      custody address (from GET /v1/rfq/network); credited to
                                      the account of the sending address once confirmed
                                      (--follow waits for that). The wallet key is found as
                                      for perps (below); the chain's RPC URL is the one the
                                      service publishes (embedded devnet), else --rpc-url or
                                      RFQ_RPC_URL
  withdraw <amount> <TOKEN> [--follow]
                                      pay <amount> of TOKEN out of your available balance to
                                      your own address (POST /v1/rfq/withdrawals); --follow
                                      waits until COMPLETED or FAILED (an operator may have to
                                      approve it first)
  buy  <size> <INSTRUMENT> [options]  request quotes to buy <size> of the base token
  sell <size> <INSTRUMENT> [options]  request quotes to sell <size> of the base token
      --limit X          BUY: most you pay, fee included; SELL: least you accept (quote token)
      --auto             autoAccept: the auction selects the best quote at its end (BUY needs --limit)
      --window D         auction window: 10s, 1500ms, 1m (default: the server's maximum)
      --accept-after D   accept the best quote this long after submitting (default: just
                         before the auction ends, so late better quotes still count)
      --no-accept        only watch quotes (accept from elsewhere with \`rfq accept\`)
      --makers A,B       only these disclosed makers (by alias, see \`makers\`) see it and quote
      --exclude-makers A,B
                         these disclosed makers never see it (not with --makers)
      --sweep            several makers may fill it: each quotes part of the size and the
                         best quotes are taken until the size is filled (on a perp the CLI
                         ranks them, signs one IOC over the selection and names the quotes)
      --min X            with --sweep: the least that must be filled (default: all of it)
    Quotes are shown live as they arrive and re-price; then the best acceptable one is
    accepted and settlement is followed until SETTLED, FAILED or CANCELLED.
    Perps (ETH-USDC-PERP ...): the CLI signs your venue order (IOC) for the quote it accepts
    and approves the quote's builder fee from your wallet when needed; without --limit it
    uses the venue's touch 1 % against you times the size. The wallet key is, in order:
    --private-key (or RFQ_PRIVATE_KEY), the key you logged in with, or the demo taker's key
    in the embedded data directory (RFQ_DATA_DIR, default ./.rfq-data) when logged in as it.
      --private-key 0x.. the wallet that signs the venue order
      --venue-url URL    the venue (env RFQ_VENUE_URL; default: the one the service publishes)
  accept <rfqId> [--quote qt_.. [--version N]] [--private-key 0x..] [--venue-url URL]
                                      accept a chosen quote (default: the best one) and follow
  status <rfqId> [--follow]           show an RFQ and its quotes; --follow waits until terminal
  cancel <rfqId>                      cancel an RFQ still in its auction

INSTRUMENT is an id such as ETH-USDC-SPOT (ETH-USDC means ETH-USDC-SPOT).

global options:
  --url URL            service base URL (env RFQ_URL, else the URL saved at login,
                       else http://127.0.0.1:8080)
  --credentials FILE   where the credential is remembered (env RFQ_CREDENTIALS, default
                       cli-credentials.json in RFQ_DATA_DIR, else ${DEFAULT_CREDENTIALS_FILE});
                       written mode 0600, holds the API secret
  --json               print one JSON document on stdout (for scripts; use
                       \`npm run --silent rfq -- --json ...\` so npm prints no banner)
  --no-ws              follow over REST polling only, without the WebSocket
  --timeout D          buy/sell/accept/status --follow: stop following after D
  -h, --help           show this help

exit status: 0 ok (trade SETTLED), 1 refused/failed call, 2 usage or not logged in,
             3 the RFQ ended FAILED or CANCELLED
`;

const options = {
  url: { type: 'string' },
  credentials: { type: 'string' },
  json: { type: 'boolean' },
  'no-ws': { type: 'boolean' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'private-key': { type: 'string' },
  'access-key': { type: 'string' },
  secret: { type: 'string' },
  'expires-in': { type: 'string' },
  'siwe-domain': { type: 'string' },
  'chain-id': { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  auto: { type: 'boolean' },
  window: { type: 'string' },
  'accept-after': { type: 'string' },
  'no-accept': { type: 'boolean' },
  quote: { type: 'string' },
  version: { type: 'string' },
  follow: { type: 'boolean' },
  'venue-url': { type: 'string' },
  'rpc-url': { type: 'string' },
  status: { type: 'string' },
  makers: { type: 'string' },
  'exclude-makers': { type: 'string' },
  sweep: { type: 'boolean' },
  min: { type: 'string' },
} as const;

type Values = { [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'boolean' ? boolean : string };

const GLOBAL = ['url', 'credentials', 'json', 'no-ws', 'help'];
const COMMAND_OPTIONS: Record<string, string[]> = {
  login: ['private-key', 'access-key', 'secret', 'expires-in', 'siwe-domain', 'chain-id'],
  logout: [],
  balances: [],
  instruments: [],
  makers: [],
  ledger: ['limit', 'cursor'],
  trades: ['limit', 'cursor', 'status'],
  deposit: ['follow', 'timeout', 'private-key', 'rpc-url'],
  withdraw: ['follow', 'timeout'],
  buy: ['limit', 'auto', 'window', 'accept-after', 'no-accept', 'timeout', 'private-key', 'venue-url', 'makers', 'exclude-makers', 'sweep', 'min'],
  sell: ['limit', 'auto', 'window', 'accept-after', 'no-accept', 'timeout', 'private-key', 'venue-url', 'makers', 'exclude-makers', 'sweep', 'min'],
  accept: ['quote', 'version', 'timeout', 'private-key', 'venue-url'],
  status: ['follow', 'timeout'],
  cancel: [],
};

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_NOT_SETTLED = 3;

class UsageError extends Error {}

/** A comma-separated list of maker aliases; the service checks each alias. */
function aliasList(raw: string, flag: string): string[] {
  const aliases = raw.split(',').map((a) => a.trim()).filter((a) => a !== '');
  if (aliases.length === 0) throw new UsageError(`${flag}: expected one or more maker aliases, comma-separated`);
  return aliases;
}

/** `--limit` and `--cursor` of a listing command. */
function pageQuery(values: Values): { limit?: number; cursor?: string } {
  return { ...(values.limit ? { limit: integer(values.limit, '--limit') } : {}), ...(values.cursor ? { cursor: values.cursor } : {}) };
}

/** The line that says how to read the next page, when there is one. */
const moreLine = (page: { hasMore: boolean; nextCursor?: string | null }) => (page.hasMore ? `\nmore: --cursor ${page.nextCursor}` : '');

const RFQ_STATUSES: string[] = ['PENDING', 'QUOTED', 'SETTLED', 'FAILED', 'CANCELLED'];

/** Polls a withdrawal until COMPLETED or FAILED (a TIMEOUT error after `timeoutMs`). */
async function withdrawalOutcome(client: RfqClient, withdrawalId: string, timeoutMs: number): Promise<Withdrawal> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const current = await client.getWithdrawal(withdrawalId);
    if (current.status === 'COMPLETED' || current.status === 'FAILED') return current;
    if (Date.now() > until) throw new CliError('TIMEOUT', `withdrawal ${withdrawalId} is still ${current.status}${current.status === 'PENDING' ? ' (waiting for an operator\'s approval)' : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The service URL this run talks to and where it came from, for an UNREACHABLE that says what to change. */
const target = { url: '', from: '' };
/** A failure with a code of the CLI's own (not the server's): NOT_LOGGED_IN, UNREACHABLE ... */
class CliError extends Error {
  readonly code: string;
  readonly exitCode: number;
  constructor(code: string, message: string, exitCode = EXIT_FAILED) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
  }
}

function expectArgs(args: string[], count: number, shape: string): string[] {
  if (args.length !== count) throw new UsageError(`expected: ${shape}`);
  return args;
}

/** `10s`, `1500ms`, `2m`, or a bare number of seconds, as milliseconds. */
function parseDuration(raw: string, flag: string): number {
  const match = /^(\d+)(ms|s|m)?$/.exec(raw);
  if (!match) throw new UsageError(`${flag}: expected a duration such as 10s, 1500ms or 1m, got ${JSON.stringify(raw)}`);
  const value = Number(match[1]);
  const ms = match[2] === 'ms' ? value : match[2] === 'm' ? value * 60_000 : value * 1000;
  if (!Number.isSafeInteger(ms)) throw new UsageError(`${flag}: too large`);
  return ms;
}

function integer(raw: string, flag: string): number {
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new UsageError(`${flag} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function instrumentOf(raw: string): string {
  const id = raw.toUpperCase();
  return id.split('-').length === 2 ? `${id}-SPOT` : id;
}

interface Output {
  json: boolean;
  /** Progress for people; silent under --json so stdout holds one document. */
  say(line: string): void;
  result(value: unknown, human: string): void;
}

function output(json: boolean): Output {
  return {
    json,
    say: (line) => {
      if (!json) process.stdout.write(`${line}\n`);
    },
    result: (value, human) => {
      process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
    },
  };
}

async function login(values: Values, env: NodeJS.ProcessEnv, url: string, file: string, out: Output): Promise<number> {
  const privateKey = values['private-key'] ?? (env.RFQ_PRIVATE_KEY || undefined);
  const accessKey = values['access-key'] ?? (env.RFQ_ACCESS_KEY || undefined);
  const secret = values.secret ?? (env.RFQ_SECRET || undefined);
  if (privateKey && (accessKey || secret)) throw new UsageError('login: give either a private key or an access key and secret, not both');
  let saved: SavedCredential;
  if (privateKey) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) throw new UsageError('login: the private key must be 0x followed by 64 hex digits');
    const client = new RfqClient(url);
    const signedIn = await client.signIn(privateKeyToAccount(privateKey as `0x${string}`), {
      ...(values['siwe-domain'] ? { domain: values['siwe-domain'] } : {}),
      ...(values['chain-id'] ? { chainId: integer(values['chain-id'], '--chain-id') } : {}),
      ...(values['expires-in'] ? { expiresInSecs: integer(values['expires-in'], '--expires-in') } : {}),
    });
    // The key is kept with the API secret (mode 0600): perp accepts sign the venue order with it.
    saved = { url, accessKey: signedIn.accessKey, secret: signedIn.secret, account: signedIn.account, userId: signedIn.userId, expiresAt: signedIn.expiresAt, walletKey: privateKey as `0x${string}` };
  } else if (accessKey && secret) {
    const client = new RfqClient(url, { accessKey, secret });
    // Prove the pair works before remembering it.
    await client.balances();
    // A pasted pair names no account; the embedded demo taker's does, through its key file.
    const demoKey = await demoTakerKey(path.resolve(env.RFQ_DATA_DIR || './.rfq-data'), accessKey);
    saved = { url, accessKey, secret, ...(demoKey ? { account: privateKeyToAccount(demoKey).address } : {}) };
  } else {
    throw new UsageError('login: needs --private-key (or RFQ_PRIVATE_KEY), or --access-key and --secret (or RFQ_ACCESS_KEY and RFQ_SECRET)');
  }
  await writeCredential(file, saved);
  const { secret: _secret, walletKey: _walletKey, ...shown } = saved;
  out.result({ ...shown, credentialsFile: file }, `logged in${saved.account ? ` as ${saved.account}` : ''} at ${url} (key ${saved.accessKey}${saved.expiresAt ? `, expires ${new Date(saved.expiresAt).toISOString()}` : ''})\ncredential saved to ${file}`);
  return 0;
}

function tradeExit(result: TradeResult): number {
  return result.rfq.status === 'SETTLED' ? 0 : EXIT_NOT_SETTLED;
}

function tradeHuman(result: TradeResult): string {
  return outcome(result.rfq, result.perpFill, result.perpSweep);
}

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const values = parsed.values as Values;
  const positionals = parsed.positionals;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const out = output(values.json ?? false);
  const [command, ...args] = positionals;
  if (!command) throw new UsageError('no command given (try --help)');
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) throw new UsageError(`unknown command ${JSON.stringify(command)} (try --help)`);
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && !GLOBAL.includes(name) && !allowed.includes(name)) throw new UsageError(`--${name} does not apply to "${command}"`);
  }
  const file = credentialsPath(values.credentials, env);
  const saved = command === 'login' ? null : await readCredential(file);
  const url = values.url ?? (env.RFQ_URL || undefined) ?? saved?.url ?? 'http://127.0.0.1:8080';
  target.url = url;
  target.from = values.url ? '--url' : env.RFQ_URL ? 'RFQ_URL' : saved?.url ? `the URL saved at login in ${file}` : 'the default';
  try {
    new URL(url);
  } catch {
    throw new UsageError(`--url: not a valid URL: ${JSON.stringify(url)}`);
  }
  if (command === 'login') {
    expectArgs(args, 0, 'login --private-key 0x.. | --access-key ak_.. --secret S');
    return login(values, env, url, file, out);
  }
  // Validate the command line fully before anything goes to the server.
  const webSocket = !values['no-ws'];
  const perpSettings = { flagKey: values['private-key'], venueUrl: values['venue-url'], env, saved, credentialsFile: file };
  const timeoutMs = values.timeout !== undefined ? parseDuration(values.timeout, '--timeout') : undefined;
  let action: (client: RfqClient) => Promise<number>;
  switch (command) {
    case 'logout':
      expectArgs(args, 0, 'logout');
      action = async (client) => {
        try {
          await client.revokeApiKey(client.credentials!.accessKey);
        } catch (error) {
          // An expired or already revoked key is as good as revoked: still forget it.
          if (!(error instanceof ApiError && error.status === 401)) throw error;
        }
        await removeCredential(file);
        out.result({ revoked: client.credentials!.accessKey, credentialsFile: file }, `key ${client.credentials!.accessKey} revoked; ${file} removed`);
        return 0;
      };
      break;
    case 'balances':
      expectArgs(args, 0, 'balances');
      action = async (client) => {
        const result = await client.balances();
        out.result(result, balancesTable(result.balances));
        return 0;
      };
      break;
    case 'instruments':
      expectArgs(args, 0, 'instruments');
      action = async (client) => {
        const result = await client.instruments();
        out.result(result, instrumentsTable(result.instruments));
        return 0;
      };
      break;
    case 'makers':
      expectArgs(args, 0, 'makers');
      action = async (client) => {
        const result = await client.disclosedMakers();
        out.result(result, result.makers.length === 0 ? 'no maker has disclosed itself; RFQs reach every maker' : result.makers.map((m) => m.alias).join('\n'));
        return 0;
      };
      break;
    case 'ledger': {
      expectArgs(args, 0, 'ledger [--limit N] [--cursor C]');
      const query = pageQuery(values);
      action = async (client) => {
        const page = await client.ledger(query);
        out.result(page, `${ledgerTable(page.entries)}${moreLine(page)}`);
        return 0;
      };
      break;
    }
    case 'trades': {
      expectArgs(args, 0, 'trades [--limit N] [--cursor C] [--status S]');
      const status = values.status?.toUpperCase();
      if (status !== undefined && !RFQ_STATUSES.includes(status)) throw new UsageError(`--status must be one of ${RFQ_STATUSES.join(', ')}, got ${JSON.stringify(values.status)}`);
      const query = { ...pageQuery(values), ...(status ? { status: status as RfqStatus } : {}) };
      action = async (client) => {
        const page = await client.listRfqs(query);
        out.result(page, `${tradesTable(page.items)}${moreLine(page)}`);
        return 0;
      };
      break;
    }
    case 'deposit': {
      const [amount, token] = expectArgs(args, 2, 'deposit <amount> <TOKEN> [--follow] [--private-key 0x..] [--rpc-url URL]');
      const rpcUrl = values['rpc-url'] ?? (env.RFQ_RPC_URL || undefined);
      if (timeoutMs !== undefined && !values.follow) throw new UsageError('--timeout applies to deposit --follow');
      action = async (client) => {
        const { key, source } = await walletKeyFor(client.credentials!.accessKey, perpSettings);
        out.say(`sending ${amount} ${token!.toUpperCase()} to custody from the wallet in ${source}`);
        const sent = await depositToCustody(client, { key, token: token!, amount: amount!, rpcUrl });
        out.say(`sent in ${sent.txHash} (block ${sent.blockNumber}) from ${sent.from} to ${sent.custodyAddress}`);
        if (!values.follow) {
          out.result(sent, `deposit sent: ${sent.amount} ${sent.token} in ${sent.txHash}; it is credited to the account of ${sent.from} once confirmed (\`npm run rfq -- balances\`)`);
          return 0;
        }
        const credited = await depositCredited(client, sent.txHash, timeoutMs ?? 120_000);
        if (!credited) throw new CliError('TIMEOUT', `${sent.txHash} is not credited yet; it will be once the chain confirms it (\`npm run rfq -- balances\`)`);
        out.result({ ...sent, deposit: credited }, `deposit ${credited.depositId} ${credited.status}: ${credited.amount} ${credited.token} (tx ${credited.txHash})`);
        return credited.status === 'COMPLETED' ? 0 : EXIT_NOT_SETTLED;
      };
      break;
    }
    case 'withdraw': {
      const [amount, token] = expectArgs(args, 2, 'withdraw <amount> <TOKEN> [--follow]');
      if (timeoutMs !== undefined && !values.follow) throw new UsageError('--timeout applies to withdraw --follow');
      action = async (client) => {
        const created = await client.createWithdrawal({ token: token!.toUpperCase(), amount: amount! });
        if (!values.follow) {
          out.result(created, `withdrawal ${created.withdrawalId} ${created.status}: ${amount} ${token!.toUpperCase()} to your own address`);
          return 0;
        }
        out.say(`withdrawal ${created.withdrawalId} ${created.status}; following`);
        const done = await withdrawalOutcome(client, created.withdrawalId, timeoutMs ?? 120_000);
        out.result(done, `withdrawal ${done.withdrawalId} ${done.status}: ${done.amount} ${done.token} to ${done.toAddress}${done.txHash ? ` in ${done.txHash}` : ''}${done.failureReason ? ` (${done.failureReason})` : ''}`);
        return done.status === 'COMPLETED' ? 0 : EXIT_NOT_SETTLED;
      };
      break;
    }
    case 'buy':
    case 'sell': {
      const [size, instrument] = expectArgs(args, 2, `${command} <size> <INSTRUMENT> [--limit X] [--auto] [--window D]`);
      if (values.auto && (values['no-accept'] || values['accept-after'])) throw new UsageError('--auto leaves the choice to the auction: --no-accept and --accept-after do not apply');
      if (values.makers !== undefined && values['exclude-makers'] !== undefined) throw new UsageError('--makers names who may quote, --exclude-makers who may not: give one of them');
      if (values.auto && command === 'buy' && values.limit === undefined) throw new UsageError('buy --auto needs --limit X: the most you pay, fee included, in the quote token');
      if (values.min !== undefined && !values.sweep) throw new UsageError('--min is the least a sweep must fill: it needs --sweep');
      const request = {
        side: command.toUpperCase() as Side,
        baseQty: size!,
        instrumentId: instrumentOf(instrument!),
        autoAccept: values.auto ?? false,
        noAccept: values['no-accept'] ?? false,
        webSocket,
        ...(values.limit !== undefined ? { quoteLimit: values.limit } : {}),
        ...(values.window !== undefined ? { windowMs: parseDuration(values.window, '--window') } : {}),
        ...(values['accept-after'] !== undefined ? { acceptAfterMs: parseDuration(values['accept-after'], '--accept-after') } : {}),
        ...(values.makers !== undefined ? { makers: aliasList(values.makers, '--makers') } : {}),
        ...(values['exclude-makers'] !== undefined ? { excludeMakers: aliasList(values['exclude-makers'], '--exclude-makers') } : {}),
        ...(values.sweep ? { sweep: values.min !== undefined ? { minFillQty: values.min } : {} } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      };
      action = async (client) => {
        const perp = isPerpInstrument(request.instrumentId) ? await perpTakerFor(client, perpSettings) : undefined;
        const result = await trade(client, { ...request, ...(perp ? { perp } : {}) }, out.say);
        out.result(result, tradeHuman(result));
        return tradeExit(result);
      };
      break;
    }
    case 'accept': {
      const [rfqId] = expectArgs(args, 1, 'accept <rfqId> [--quote qt_.. [--version N]]');
      if (values.version !== undefined && values.quote === undefined) throw new UsageError('--version needs --quote');
      const choice = {
        webSocket,
        ...(values.quote !== undefined ? { quoteId: values.quote } : {}),
        ...(values.version !== undefined ? { version: integer(values.version, '--version') } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      };
      action = async (client) => {
        const perp = isPerpInstrument((await client.getRfq(rfqId!)).instrumentId) ? await perpTakerFor(client, perpSettings) : undefined;
        const result = await acceptAndFollow(client, rfqId!, { ...choice, ...(perp ? { perp } : {}) }, out.say);
        out.result(result, tradeHuman(result));
        return tradeExit(result);
      };
      break;
    }
    case 'status': {
      const [rfqId] = expectArgs(args, 1, 'status <rfqId> [--follow]');
      if (timeoutMs !== undefined && !values.follow) throw new UsageError('--timeout applies to status --follow');
      action = async (client) => {
        if (values.follow) {
          const result = await followRfq(client, rfqId!, { webSocket, ...(timeoutMs !== undefined ? { timeoutMs } : {}) }, out.say);
          out.result({ rfq: result.rfq, quotes: result.quotes }, rfqSummary(result.rfq, result.quotes));
          return tradeExit(result);
        }
        const [rfq, quotes] = await Promise.all([client.getRfq(rfqId!), client.rfqQuotes(rfqId!, { limit: 100 })]);
        out.result({ rfq, quotes: quotes.items }, rfqSummary(rfq, quotes.items));
        return 0;
      };
      break;
    }
    case 'cancel': {
      const [rfqId] = expectArgs(args, 1, 'cancel <rfqId>');
      action = async (client) => {
        const rfq = await client.cancelRfq(rfqId!);
        out.result(rfq, outcome(rfq));
        return 0;
      };
      break;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
  const accessKey = env.RFQ_ACCESS_KEY || saved?.accessKey;
  const secret = env.RFQ_SECRET || saved?.secret;
  if (!accessKey || !secret) throw new CliError('NOT_LOGGED_IN', `no credential in ${file}: run \`npm run rfq -- login\` first (or set RFQ_ACCESS_KEY and RFQ_SECRET)`, EXIT_USAGE);
  return action(new RfqClient(url, { accessKey, secret }));
}

function report(json: boolean, code: string, message: string, extra: { status?: number; details?: Record<string, unknown> } = {}): void {
  const fieldErrors = Array.isArray(extra.details?.errors)
    ? (extra.details.errors as Array<{ field?: string; message?: string }>).map((e) => `  ${e.field ?? '?'}: ${e.message ?? ''}`)
    : [];
  const otherDetails = extra.details ? Object.fromEntries(Object.entries(extra.details).filter(([key]) => key !== 'errors')) : {};
  const details = Object.keys(otherDetails).length > 0 ? [`  details: ${JSON.stringify(otherDetails)}`] : [];
  process.stderr.write([`error: ${code}: ${message}${extra.status ? ` (HTTP ${extra.status})` : ''}`, ...fieldErrors, ...details].join('\n') + '\n');
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message, ...extra } }, null, 2)}\n`);
}

const argv = process.argv.slice(2);
const json = argv.includes('--json');
try {
  process.exitCode = await run(argv, process.env);
} catch (error) {
  if (error instanceof UsageError) {
    report(json, 'USAGE', error.message);
    process.stderr.write('  (npm run rfq -- --help for usage)\n');
    process.exitCode = EXIT_USAGE;
  } else if (error instanceof CliError) {
    report(json, error.code, error.message);
    process.exitCode = error.exitCode;
  } else if (error instanceof ApiError) {
    report(json, error.code, error.message.replace(/^\d+ \S+: /, ''), { status: error.status, ...(error.details ? { details: error.details } : {}) });
    process.exitCode = EXIT_FAILED;
  } else if (error instanceof DepositError) {
    report(json, 'DEPOSIT_FAILED', error.message);
    process.exitCode = EXIT_FAILED;
  } else if (error instanceof NoWalletKey) {
    report(json, 'NO_WALLET_KEY', error.message);
    process.exitCode = EXIT_USAGE;
  } else if (error instanceof FollowTimeout) {
    report(json, 'TIMEOUT', error.message, error.rfq ? { details: { status: error.rfq.status } } : {});
    process.exitCode = EXIT_FAILED;
  } else if (error instanceof TypeError && (error as { cause?: unknown }).cause !== undefined) {
    // fetch() failures: the cause names the network problem (ECONNREFUSED ...).
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    report(json, 'UNREACHABLE', `cannot reach the service at ${target.url} (${target.from}): ${cause?.code ?? cause?.message ?? error.message}; is it running? Point the CLI at it with --url or RFQ_URL`, { details: { url: target.url, from: target.from } });
    process.exitCode = EXIT_FAILED;
  } else {
    report(json, 'INTERNAL', error instanceof Error ? error.message : String(error));
    process.exitCode = EXIT_FAILED;
  }
}
