/**
 * `npm run admin -- <command> ...`: the operator CLI over `/admin/v1` (DESIGN.md section 6), a thin
 * wrapper around AdminClient. Prints the response as JSON (pretty unless --compact); on failure
 * prints `error: CODE: message` (plus one line per field error) to stderr and exits non-zero:
 * 1 for a refused or failed call (and `invariants` reporting violations), 2 for a usage error.
 *
 * Server URL: --url, else RFQ_URL, else http://127.0.0.1:8080. Operator token: --token, else
 * RFQ_ADMIN_TOKEN, else the file `<RFQ_DATA_DIR or ./.rfq-data>/admin-token` that the embedded
 * stack writes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AdminClient, type AdminInstrumentInput, type AdminMakerInput } from '../client/admin-client.ts';
import { ApiError } from '../client/http.ts';

const USAGE = `usage: npm run admin -- [--url URL] [--token TOKEN] [--compact] <command> ...

commands:
  token put <SYMBOL> --decimals N [--address 0x..]
      create or update a token (decimals cannot change once set)
  instrument put <BASE-QUOTE-TYPE> --fee <tenthBp> [--base B] [--quote Q] [--type SPOT|PERP]
                 [--min-notional X] [--disabled]
      create or update an instrument; --base/--quote/--type default to the parts of the id;
      --fee is the taker fee in tenths of a basis point (250 = 25 bp = 0.25 %)
  maker put <address> --pairs ETH-USDC,BTC-USDC --modes permit2[,promised,xchange,perp]
            [--spender 0x..] [--adapter-signer 0x..] [--inactive] [--unsuspend]
      register or update a maker; prints its makerId (perp: quotes the pairs' perp
      instruments with signed venue orders; no spender or adapter signer)
  maker list
      list registered makers
  balance adjust <address> <TOKEN> <signed amount> --memo "..." [--rail EVM|VENUE]
      post a ledger ADJUSTMENT (negative amounts debit; "-- -5" or a bare -5 both work)
  invariants
      run the ledger checks; exits 1 when any is violated
  withdrawals list [--status PENDING|APPROVED|PROCESSING|COMPLETED|FAILED|UNRESOLVED] [--cursor C]
      users' withdrawals, newest first (page envelope)
  withdrawals approve <id>
  withdrawals reject <id> [--reason "..."]
      decide a PENDING withdrawal (approve: custody sends it; reject: FAILED, lock released)
  withdrawals resolve <id> --outcome COMPLETED|FAILED [--tx-hash 0x..]
      settle an UNRESOLVED withdrawal by hand after checking the chain
  deposits unattributed [--cursor C]
      transfers into custody from addresses with no account (credited to nobody)
  anomalies
      settlement anomalies: what the chain follower could not settle normally
  anomalies resolve <txHash> <logIndex> [--note "..."]
      mark an anomaly handled (dealt with by hand)
  anomalies replay <txHash> <logIndex>
      re-run a quarantined chain log's handler once its cause is fixed (once only)
  faucet <address> <TOKEN> <amount>
      embedded devnet only: mint test tokens on-chain (human units); prints the txHash
  payouts unpaid
      promised payouts still owed (their last transfer REVERTED, CANCELLED or UNRESOLVED)
  payouts retry <quoteId>
      queue an unpaid promised payout again, once its cause is fixed (custody funded ...)
  settings get
  settings set key=value [key=value ...]
      read or change operator settings (integers)
  v0 orders [--status S] [--account 0x..] [--limit N] [--cursor C]
      every account's /v0 orders, newest first (status: pending, open, filled,
      partially_filled, cancelled, expired, failed)
  v0 withdrawals [--status S] [--account 0x..] [--limit N] [--cursor C]
      every account's /v0 withdrawals, newest first (status: pending, completed, failed)
  v0 fees <address> [--taker-ppm N --maker-ppm N | --default]
      an account's /v0 spot fee rates; with both rates, set them (parts per million of the
      token received); --default removes its own rates so the defaults apply

options:
  --url URL        service base URL (env RFQ_URL, default http://127.0.0.1:8080)
  --token TOKEN    operator token (env RFQ_ADMIN_TOKEN, else <RFQ_DATA_DIR or ./.rfq-data>/admin-token)
  --compact        one-line JSON output
  -h, --help       show this help

exit status: 0 ok, 1 refused/failed call or invariant violations, 2 usage error
`;

const options = {
  url: { type: 'string' },
  token: { type: 'string' },
  compact: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  decimals: { type: 'string' },
  address: { type: 'string' },
  base: { type: 'string' },
  quote: { type: 'string' },
  type: { type: 'string' },
  fee: { type: 'string' },
  'min-notional': { type: 'string' },
  disabled: { type: 'boolean' },
  pairs: { type: 'string' },
  modes: { type: 'string' },
  spender: { type: 'string' },
  'adapter-signer': { type: 'string' },
  inactive: { type: 'boolean' },
  unsuspend: { type: 'boolean' },
  memo: { type: 'string' },
  rail: { type: 'string' },
  status: { type: 'string' },
  account: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  'taker-ppm': { type: 'string' },
  'maker-ppm': { type: 'string' },
  default: { type: 'boolean' },
  reason: { type: 'string' },
  outcome: { type: 'string' },
  'tx-hash': { type: 'string' },
  note: { type: 'string' },
} as const;

const SETTLEMENT_MODES: readonly string[] = ['permit2', 'promised', 'xchange', 'perp'] satisfies AdminMakerInput['settlementModes'];

type Values = { [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'boolean' ? boolean : string };

const GLOBAL = ['url', 'token', 'compact', 'help'];
/** Options each command accepts besides the global ones. */
const COMMAND_OPTIONS: Record<string, string[]> = {
  'token put': ['decimals', 'address'],
  'instrument put': ['base', 'quote', 'type', 'fee', 'min-notional', 'disabled'],
  'maker put': ['pairs', 'modes', 'spender', 'adapter-signer', 'inactive', 'unsuspend'],
  'maker list': [],
  'balance adjust': ['memo', 'rail'],
  invariants: [],
  faucet: [],
  'withdrawals list': ['status', 'cursor'],
  'withdrawals approve': [],
  'withdrawals reject': ['reason'],
  'withdrawals resolve': ['outcome', 'tx-hash'],
  'deposits unattributed': ['cursor'],
  anomalies: [],
  'anomalies resolve': ['note'],
  'anomalies replay': [],
  'settings get': [],
  'settings set': [],
  'payouts unpaid': [],
  'payouts retry': [],
  'v0 orders': ['status', 'account', 'limit', 'cursor'],
  'v0 withdrawals': ['status', 'account', 'limit', 'cursor'],
  'v0 fees': ['taker-ppm', 'maker-ppm', 'default'],
};

class UsageError extends Error {}

const WITHDRAWAL_STATUSES = ['PENDING', 'APPROVED', 'PROCESSING', 'COMPLETED', 'FAILED', 'UNRESOLVED'];

/** Exit codes: a refused call and a usage mistake differ so scripts can tell them apart. */
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

// parseArgs treats "-5" as an unknown short option; negative numbers are common here (balance
// adjust), so they are swapped for a marker before parsing and restored afterwards.
const NEGATIVE = '\u0000neg:';
const restore = (value: string): string => (value.startsWith(NEGATIVE) ? `-${value.slice(NEGATIVE.length)}` : value);

function parse(argv: string[]): { values: Values; positionals: string[] } {
  const args = argv.map((arg) => (/^-\d/.test(arg) ? `${NEGATIVE}${arg.slice(1)}` : arg));
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const values: Record<string, string | boolean | undefined> = {};
  for (const [key, value] of Object.entries(parsed.values)) values[key] = typeof value === 'string' ? restore(value) : value;
  return { values: values as Values, positionals: parsed.positionals.map(restore) };
}

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function integer(raw: string, what: string): number {
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new UsageError(`${what} must be an integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function list(raw: string): string[] {
  return raw.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
}

function expectArgs(positionals: string[], count: number, shape: string): string[] {
  if (positionals.length !== count) throw new UsageError(`expected: ${shape}`);
  return positionals;
}

function readTokenFile(env: NodeJS.ProcessEnv): string | null {
  const dataDir = path.resolve(env.RFQ_DATA_DIR && env.RFQ_DATA_DIR !== '' ? env.RFQ_DATA_DIR : './.rfq-data');
  try {
    const token = readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    return token === '' ? null : token;
  } catch {
    return null;
  }
}

function print(result: unknown, compact: boolean): void {
  process.stdout.write(`${JSON.stringify(result, null, compact ? undefined : 2)}\n`);
}

function fail(code: string, message: string, extra: string[] = []): void {
  process.stderr.write([`error: ${code}: ${message}`, ...extra.map((line) => `  ${line}`)].join('\n') + '\n');
}

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('no command given (try --help)');
  const single = positionals[0] === 'invariants' || positionals[0] === 'faucet' || (positionals[0] === 'anomalies' && positionals[1] !== 'resolve' && positionals[1] !== 'replay');
  const command = single ? positionals[0]! : positionals.slice(0, 2).join(' ');
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) throw new UsageError(`unknown command ${JSON.stringify(command)} (try --help)`);
  const args = positionals.slice(single ? 1 : 2);
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && !GLOBAL.includes(name) && !allowed.includes(name)) throw new UsageError(`--${name} does not apply to "${command}"`);
  }

  // Build the call before resolving the token, so a usage mistake never needs a server.
  let call: (admin: AdminClient) => Promise<unknown>;
  let check: (result: unknown) => boolean = () => true;
  switch (command) {
    case 'token put': {
      const [symbol] = expectArgs(args, 1, 'token put <SYMBOL> --decimals N [--address 0x..]');
      const body: { decimals: number; address?: string } = { decimals: integer(required(values, 'decimals'), '--decimals') };
      if (values.address !== undefined) body.address = values.address;
      call = (admin) => admin.putToken(encodeURIComponent(symbol!), body);
      break;
    }
    case 'instrument put': {
      const [instrumentId] = expectArgs(args, 1, 'instrument put <BASE-QUOTE-TYPE> --fee <tenthBp> [...]');
      const parts = instrumentId!.split('-');
      const base = values.base ?? (parts.length === 3 ? parts[0] : undefined);
      const quote = values.quote ?? (parts.length === 3 ? parts[1] : undefined);
      const type = values.type ?? (parts.length === 3 ? parts[2] : undefined);
      if (!base) throw new UsageError('--base is required (or an id of the form BASE-QUOTE-TYPE)');
      if (!quote) throw new UsageError('--quote is required (or an id of the form BASE-QUOTE-TYPE)');
      if (type !== 'SPOT' && type !== 'PERP') throw new UsageError(`--type must be SPOT or PERP, got ${JSON.stringify(type ?? '')}`);
      const body: AdminInstrumentInput = { base, quote, type, takerFeeTenthBp: integer(required(values, 'fee'), '--fee') };
      if (values['min-notional'] !== undefined) body.minQuoteNotional = values['min-notional'];
      body.enabled = !values.disabled;
      call = (admin) => admin.putInstrument(encodeURIComponent(instrumentId!), body);
      break;
    }
    case 'maker put': {
      const [address] = expectArgs(args, 1, 'maker put <address> --pairs A-B,... --modes permit2[,...]');
      const modes = list(required(values, 'modes'));
      for (const mode of modes) {
        if (!SETTLEMENT_MODES.includes(mode)) throw new UsageError(`--modes: unknown settlement mode ${JSON.stringify(mode)} (${SETTLEMENT_MODES.join(', ')})`);
      }
      if (values.pairs === undefined) throw new UsageError('--pairs is required');
      const body: AdminMakerInput & { suspended?: boolean } = {
        active: !values.inactive,
        pairs: list(values.pairs),
        settlementModes: modes as AdminMakerInput['settlementModes'],
      };
      if (values.spender !== undefined) body.spender = values.spender;
      if (values['adapter-signer'] !== undefined) body.adapterSigner = values['adapter-signer'];
      if (values.unsuspend) body.suspended = false;
      call = (admin) => admin.putMaker(encodeURIComponent(address!), body);
      break;
    }
    case 'maker list':
      expectArgs(args, 0, 'maker list');
      call = (admin) => admin.listMakers();
      break;
    case 'balance adjust': {
      const [address, token, amount] = expectArgs(args, 3, 'balance adjust <address> <TOKEN> <signed amount> --memo "..." [--rail EVM|VENUE]');
      const memo = required(values, 'memo');
      const rail = values.rail;
      if (rail !== undefined && rail !== 'EVM' && rail !== 'VENUE') throw new UsageError(`--rail must be EVM or VENUE, got ${JSON.stringify(rail)}`);
      call = (admin) => admin.adjustBalance({ address: address!, token: token!, amount: amount!, memo, ...(rail ? { rail } : {}) });
      break;
    }
    case 'invariants':
      expectArgs(args, 0, 'invariants');
      call = (admin) => admin.invariants();
      check = (result) => (result as { ok?: unknown }).ok === true;
      break;
    case 'faucet': {
      const [address, token, amount] = expectArgs(args, 3, 'faucet <address> <TOKEN> <amount>');
      call = (admin) => admin.faucet({ address: address!, token: token!, amount: amount! });
      break;
    }
    case 'payouts unpaid':
      expectArgs(args, 0, 'payouts unpaid');
      call = (admin) => admin.unpaidPayouts();
      break;
    case 'payouts retry': {
      const [quoteId] = expectArgs(args, 1, 'payouts retry <quoteId>');
      call = (admin) => admin.retryPayout(encodeURIComponent(quoteId!));
      break;
    }
    case 'withdrawals list': {
      expectArgs(args, 0, 'withdrawals list [--status S] [--cursor C]');
      const status = values.status;
      if (status !== undefined && !WITHDRAWAL_STATUSES.includes(status)) throw new UsageError(`--status must be one of ${WITHDRAWAL_STATUSES.join(', ')}, got ${JSON.stringify(status)}`);
      call = (admin) => admin.withdrawals({ status, cursor: values.cursor });
      break;
    }
    case 'withdrawals approve': {
      const [id] = expectArgs(args, 1, 'withdrawals approve <id>');
      call = (admin) => admin.approveWithdrawal(encodeURIComponent(id!));
      break;
    }
    case 'withdrawals reject': {
      const [id] = expectArgs(args, 1, 'withdrawals reject <id> [--reason "..."]');
      call = (admin) => admin.rejectWithdrawal(encodeURIComponent(id!), values.reason);
      break;
    }
    case 'withdrawals resolve': {
      const [id] = expectArgs(args, 1, 'withdrawals resolve <id> --outcome COMPLETED|FAILED [--tx-hash 0x..]');
      const outcome = required(values, 'outcome');
      if (outcome !== 'COMPLETED' && outcome !== 'FAILED') throw new UsageError(`--outcome must be COMPLETED or FAILED, got ${JSON.stringify(outcome)}`);
      const txHash = values['tx-hash'];
      call = (admin) => admin.resolveWithdrawal(encodeURIComponent(id!), { outcome, ...(txHash ? { txHash } : {}) });
      break;
    }
    case 'deposits unattributed':
      expectArgs(args, 0, 'deposits unattributed [--cursor C]');
      call = (admin) => admin.unattributedDeposits({ cursor: values.cursor });
      break;
    case 'anomalies':
      expectArgs(args, 0, 'anomalies');
      call = (admin) => admin.settlementAnomalies();
      break;
    case 'anomalies resolve': {
      const [txHash, logIndex] = expectArgs(args, 2, 'anomalies resolve <txHash> <logIndex> [--note "..."]');
      const note = values.note;
      const index = integer(logIndex!, 'logIndex');
      call = (admin) => admin.resolveAnomaly({ txHash: txHash!, logIndex: index, ...(note ? { note } : {}) });
      break;
    }
    case 'anomalies replay': {
      const [txHash, logIndex] = expectArgs(args, 2, 'anomalies replay <txHash> <logIndex>');
      const index = integer(logIndex!, 'logIndex');
      call = (admin) => admin.replayAnomaly({ txHash: txHash!, logIndex: index });
      break;
    }
    case 'settings get':
      expectArgs(args, 0, 'settings get');
      call = (admin) => admin.settings();
      break;
    case 'settings set': {
      if (args.length === 0) throw new UsageError('expected: settings set key=value [key=value ...]');
      const changes: Record<string, number> = {};
      for (const pair of args) {
        const index = pair.indexOf('=');
        if (index <= 0) throw new UsageError(`settings set: expected key=value, got ${JSON.stringify(pair)}`);
        changes[pair.slice(0, index)] = integer(pair.slice(index + 1), `setting ${pair.slice(0, index)}`);
      }
      call = (admin) => admin.putSettings(changes);
      break;
    }
    case 'v0 orders':
    case 'v0 withdrawals': {
      expectArgs(args, 0, `${command} [--status S] [--account 0x..] [--limit N] [--cursor C]`);
      const query: Record<string, string> = {};
      if (values.account !== undefined) query.account = values.account;
      if (values.limit !== undefined) query.limit = String(integer(values.limit, '--limit'));
      if (values.cursor !== undefined) query.cursor = values.cursor;
      // Orders have a status, withdrawals a state; the CLI says --status for both.
      if (command === 'v0 orders') call = (admin) => admin.v0Orders({ ...query, ...(values.status !== undefined ? { status: values.status } : {}) });
      else call = (admin) => admin.v0Withdrawals({ ...query, ...(values.status !== undefined ? { state: values.status } : {}) });
      break;
    }
    case 'v0 fees': {
      const [address] = expectArgs(args, 1, 'v0 fees <address> [--taker-ppm N --maker-ppm N | --default]');
      const taker = values['taker-ppm'];
      const maker = values['maker-ppm'];
      if ((taker === undefined) !== (maker === undefined)) throw new UsageError('--taker-ppm and --maker-ppm go together');
      if (values.default && taker !== undefined) throw new UsageError('--default removes the rates; it does not take --taker-ppm/--maker-ppm');
      if (values.default) call = (admin) => admin.clearV0FeeRates(address!);
      else if (taker !== undefined) {
        const rates = { takerPpm: integer(taker, '--taker-ppm'), makerPpm: integer(maker!, '--maker-ppm') };
        call = (admin) => admin.putV0FeeRates(address!, rates);
      } else call = (admin) => admin.v0FeeRates(address!);
      break;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }

  const url = values.url ?? (env.RFQ_URL && env.RFQ_URL !== '' ? env.RFQ_URL : 'http://127.0.0.1:8080');
  try {
    new URL(url);
  } catch {
    throw new UsageError(`--url: not a valid URL: ${JSON.stringify(url)}`);
  }
  const token = values.token ?? (env.RFQ_ADMIN_TOKEN && env.RFQ_ADMIN_TOKEN !== '' ? env.RFQ_ADMIN_TOKEN : readTokenFile(env));
  if (!token) {
    fail('NO_TOKEN', 'no operator token: pass --token, set RFQ_ADMIN_TOKEN, or run where <RFQ_DATA_DIR>/admin-token exists');
    return EXIT_USAGE;
  }

  let result: unknown;
  try {
    result = await call(new AdminClient(url, token));
  } catch (error) {
    if (error instanceof ApiError) {
      const message = error.message.replace(/^\d+ \S+: /, '');
      const fieldErrors = Array.isArray(error.details?.errors)
        ? (error.details.errors as Array<{ field?: string; message?: string }>).map((e) => `${e.field ?? '?'}: ${e.message ?? ''}`)
        : [];
      const otherDetails = error.details ? Object.fromEntries(Object.entries(error.details).filter(([key]) => key !== 'errors')) : {};
      fail(error.code, `${message} (HTTP ${error.status})`, [...fieldErrors, ...(Object.keys(otherDetails).length > 0 ? [`details: ${JSON.stringify(otherDetails)}`] : [])]);
      return EXIT_FAILED;
    }
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      fail('TIMEOUT', `no answer from ${url}`);
    } else {
      fail('UNREACHABLE', `cannot reach ${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}; is the service running? Point the CLI at it with --url or RFQ_URL`);
    }
    return EXIT_FAILED;
  }
  print(result, values.compact ?? false);
  if (!check(result)) {
    fail('INVARIANTS_VIOLATED', 'one or more ledger invariants are violated (see output)');
    return EXIT_FAILED;
  }
  return 0;
}

try {
  process.exitCode = await run(process.argv.slice(2), process.env);
} catch (error) {
  if (error instanceof UsageError) {
    fail('USAGE', error.message);
    process.stderr.write('  (npm run admin -- --help for usage)\n');
    process.exitCode = EXIT_USAGE;
  } else {
    fail('INTERNAL', error instanceof Error ? error.message : String(error));
    process.exitCode = EXIT_FAILED;
  }
}
