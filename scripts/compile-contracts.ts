// Compiles contracts/*.sol with solc-js, and Uniswap's Permit2 from the pinned
// @uniswap/v4-periphery package with the settings of its foundry.toml, and writes the committed
// artifacts under src/chain/artifacts/. With --check, compiles afresh and exits 1 if the
// committed artifacts differ (so a source edit or a package bump without a recompile fails CI).
//
//   node scripts/compile-contracts.ts                 # write artifacts
//   node scripts/compile-contracts.ts --check         # verify artifacts
//   node scripts/compile-contracts.ts --check --full  # verify, recompiling Permit2 too
//
// Permit2's via-IR compile costs about 25 s of CPU, so --check alone does not recompile it: it
// compares the hash of its compiler input (sources, settings, compiler version) with the
// `inputHash` the committed artifact was built from, and a differing input is a stale artifact.
// --full recompiles it and compares the output too.
// PERMIT2_PACKAGE_DIR points at another copy of the permit2 package (the check's own test).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import solcPermit2 from 'solc-0.8.17';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONTRACTS_DIR = join(ROOT, 'contracts');
const OUT_DIR = join(ROOT, 'src', 'chain', 'artifacts');
const OZ_DIR = join(ROOT, 'node_modules', '@openzeppelin', 'contracts');
const PERMIT2_DIR = process.env.PERMIT2_PACKAGE_DIR ?? join(ROOT, 'node_modules', '@uniswap', 'v4-periphery', 'lib', 'permit2');
const PERMIT2_ENTRY = 'src/Permit2.sol';

// Pinned so artifacts are reproducible; cancun keeps the bytecode deployable on current L1/L2s.
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'metadata'] } },
};

type ImmutableReferences = Record<string, { start: number; length: number }[]>;
type SolcContract = {
  abi: unknown[];
  metadata: string;
  evm: { bytecode: { object: string }; deployedBytecode: { object: string; immutableReferences?: ImmutableReferences } };
};
type AstNode = { nodeType: string; id: number; name?: string; nodes?: AstNode[] };
type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, SolcContract>>;
  sources?: Record<string, { ast: AstNode }>;
};
type Solc = { compile(input: string, callbacks?: { import(path: string): { contents: string } | { error: string } }): string; version(): string };
/** A contract as committed. Permit2's immutables are named so the devnet can fill them in. */
type Artifact = {
  contractName: string;
  abi: unknown[];
  bytecode: string;
  deployedBytecode: string;
  sourceHash: string;
  inputHash?: string;
  immutables?: ImmutableReferences;
};

function artifactOf(name: string, c: SolcContract, extra: Pick<Artifact, 'inputHash' | 'immutables'> = {}): Artifact {
  return {
    contractName: name,
    abi: c.abi,
    bytecode: `0x${c.evm.bytecode.object}`,
    deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
    sourceHash: sourceHash(c),
    ...extra,
  };
}

function runSolc(compiler: Solc, input: object, readImport?: (path: string) => { contents: string } | { error: string }): SolcOutput {
  const output = JSON.parse(compiler.compile(JSON.stringify(input), readImport ? { import: readImport } : undefined)) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  for (const e of output.errors ?? []) if (e.severity !== 'error') console.error(e.formattedMessage);
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return output;
}

function readImport(path: string): { contents: string } | { error: string } {
  const oz = '@openzeppelin/contracts/';
  const file = path.startsWith(oz) ? join(OZ_DIR, path.slice(oz.length)) : join(ROOT, path);
  return existsSync(file) ? { contents: readFileSync(file, 'utf8') } : { error: `not found: ${path}` };
}

/**
 * The `[profile.default]` settings of Permit2's foundry.toml that decide its bytecode. Read from
 * the package rather than restated, so a package bump that changes them cannot pass unnoticed.
 */
function permit2FoundrySettings(): { solc: string; viaIR: boolean; runs: number; bytecodeHash: string } {
  const toml = readFileSync(join(PERMIT2_DIR, 'foundry.toml'), 'utf8');
  const profile = toml.split(/^\[/m).find((section) => section.startsWith('profile.default]')) ?? '';
  const value = (key: string): string => {
    const m = new RegExp(`^${key}\\s*=\\s*"?([^"\\n]*)"?\\s*$`, 'm').exec(profile);
    if (!m) throw new Error(`Permit2 foundry.toml has no ${key} in [profile.default]`);
    return m[1]!;
  };
  return { solc: value('solc'), viaIR: value('via_ir') === 'true', runs: Number(value('optimizer_runs')), bytecodeHash: value('bytecode_hash') };
}

/** The package's remappings.txt, with the trailing slash forge adds to each side. */
function permit2Remappings(): [string, string][] {
  const slash = (p: string) => (p.endsWith('/') ? p : `${p}/`);
  return readFileSync(join(PERMIT2_DIR, 'remappings.txt'), 'utf8')
    .split('\n').filter((l) => l.includes('=')).map((l) => l.trim().split('=').map(slash) as [string, string]);
}

/** Permit2.sol and every file it imports, transitively, as paths relative to the permit2 package. */
function permit2Sources(remappings: [string, string][]): string[] {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const text = readFileSync(join(PERMIT2_DIR, path), 'utf8');
    for (const [, imported] of text.matchAll(/^import\s+(?:[^"']*\s+from\s+)?["']([^"']+)["']/gm)) {
      const mapped = remappings.find(([prefix]) => imported!.startsWith(prefix));
      visit(mapped ? join(mapped[1], imported!.slice(mapped[0].length)) : join(dirname(path), imported!));
    }
  };
  visit(PERMIT2_ENTRY);
  return [...seen].sort();
}

/**
 * Uniswap's Permit2 as forge builds it from its foundry.toml (solc 0.8.17, via-IR, 1,000,000
 * runs, no metadata hash, the compiler's default EVM version). Via-IR code layout follows the
 * AST ids, which follow the compiled source list, so the sources are passed as forge passes
 * them: the entry's import closure, sorted by path. The result is byte-identical to the code
 * Uniswap deployed (test/chain/artifacts.test.ts checks it against the CREATE2 address).
 * With `fromCommitted` (--check without --full) nothing is compiled: the committed artifact is
 * returned carrying the current input's hash, so any change of input shows as a stale artifact.
 */
function compilePermit2(fromCommitted: boolean): Artifact {
  const foundry = permit2FoundrySettings();
  const compiler: Solc = solcPermit2;
  if (!compiler.version().startsWith(`${foundry.solc}+`)) {
    throw new Error(`Permit2's foundry.toml asks for solc ${foundry.solc}; solc-0.8.17 is ${compiler.version()}`);
  }
  const remappings = permit2Remappings();
  const sources = Object.fromEntries(permit2Sources(remappings).map((p) => [p, { content: readFileSync(join(PERMIT2_DIR, p), 'utf8') }]));
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      viaIR: foundry.viaIR,
      optimizer: { enabled: true, runs: foundry.runs },
      metadata: { bytecodeHash: foundry.bytecodeHash },
      remappings: remappings.map(([from, to]) => `${from}=${to}`),
      outputSelection: {
        '*': { '': ['ast'] },
        [PERMIT2_ENTRY]: { Permit2: ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences', 'metadata'] },
      },
    },
  };
  const inputHash = '0x' + createHash('sha256').update(JSON.stringify({ compiler: compiler.version(), input })).digest('hex');
  const committedFile = join(OUT_DIR, 'Permit2.json');
  if (fromCommitted && existsSync(committedFile)) {
    return { ...(JSON.parse(readFileSync(committedFile, 'utf8')) as Artifact), inputHash };
  }
  const output = runSolc(compiler, input);
  const permit2 = output.contracts![PERMIT2_ENTRY]!.Permit2!;
  const names = new Map<number, string>();
  const walk = (node: AstNode) => {
    if (node.nodeType === 'VariableDeclaration' && node.name) names.set(node.id, node.name);
    for (const child of node.nodes ?? []) walk(child);
  };
  for (const { ast } of Object.values(output.sources ?? {})) walk(ast);
  const immutables: ImmutableReferences = {};
  for (const [id, refs] of Object.entries(permit2.evm.deployedBytecode.immutableReferences ?? {})) {
    immutables[names.get(Number(id)) ?? `#${id}`] = refs;
  }
  return artifactOf('Permit2', permit2, { inputHash, immutables });
}

function compile(permit2FromCommitted: boolean): Record<string, Artifact> {
  const sources: Record<string, { content: string }> = {};
  for (const f of readdirSync(CONTRACTS_DIR).filter((n) => n.endsWith('.sol')).sort()) {
    sources[`contracts/${f}`] = { content: readFileSync(join(CONTRACTS_DIR, f), 'utf8') };
  }
  const output = runSolc(solc as Solc, { language: 'Solidity', sources, settings: SETTINGS }, readImport);

  const result: Record<string, Artifact> = { Permit2: compilePermit2(permit2FromCommitted) };
  for (const [source, contracts] of Object.entries(output.contracts ?? {})) {
    if (!source.startsWith('contracts/')) continue;
    for (const [name, c] of Object.entries(contracts)) {
      if (c.evm.bytecode.object.length === 0) continue; // interfaces and abstract contracts
      if (result[name]) throw new Error(`two contracts named ${name}`);
      result[name] = artifactOf(name, c);
    }
  }
  return result;
}

// Hash of every source file (ours and OpenZeppelin's) the contract was built from, as solc
// records them in the metadata, plus the compiler version.
function sourceHash(c: SolcContract): string {
  const meta = JSON.parse(c.metadata) as { compiler: { version: string }; sources: Record<string, { keccak256: string }> };
  const entries = Object.entries(meta.sources).map(([p, s]) => [p, s.keccak256]).sort();
  return '0x' + createHash('sha256').update(JSON.stringify({ compiler: meta.compiler.version, entries })).digest('hex');
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const HEADER = '// Generated by scripts/compile-contracts.ts from contracts/*.sol and Permit2 of @uniswap/v4-periphery. Do not edit.\n';

function render(contracts: Record<string, Artifact>): Map<string, string> {
  const files = new Map<string, string>();
  const names = Object.keys(contracts).sort();
  const abis: string[] = [HEADER];
  const bytecodes: string[] = [HEADER, "import type { Hex } from 'viem';"];
  for (const name of names) {
    const c = contracts[name]!;
    files.set(`${name}.json`, JSON.stringify(c, null, 2) + '\n');
    abis.push(`\nexport const ${lowerFirst(name)}Abi = ${JSON.stringify(c.abi, null, 2)} as const;`);
    bytecodes.push(`import ${lowerFirst(name)} from './${name}.json' with { type: 'json' };`);
  }
  bytecodes.push('');
  for (const name of names) {
    const v = lowerFirst(name);
    bytecodes.push(`export const ${v}Bytecode = ${v}.bytecode as Hex;`);
    bytecodes.push(`export const ${v}DeployedBytecode = ${v}.deployedBytecode as Hex;`);
    if (contracts[name]!.immutables) {
      bytecodes.push('/** Where the constructor writes each immutable into the deployed code (byte offsets). */');
      bytecodes.push(`export const ${v}Immutables = ${JSON.stringify(contracts[name]!.immutables)} as const;`);
    }
  }
  files.set('abis.ts', abis.join('\n') + '\n');
  files.set('bytecodes.ts', bytecodes.join('\n') + '\n');
  files.set('index.ts', `${HEADER}export * from './abis.ts';\nexport * from './bytecodes.ts';\n`);
  return files;
}

function main(): number {
  const check = process.argv.includes('--check');
  const files = render(compile(check && !process.argv.includes('--full')));
  const existing = existsSync(OUT_DIR) ? readdirSync(OUT_DIR) : [];
  const stale = existing.filter((f) => !files.has(f));
  if (check) {
    const bad = [...files].filter(([f, content]) => !existing.includes(f) || readFileSync(join(OUT_DIR, f), 'utf8') !== content);
    const problems = [...bad.map(([f]) => `out of date: ${f}`), ...stale.map((f) => `not generated: ${f}`)];
    if (problems.length > 0) {
      console.error(`contract artifacts do not match contracts/ (run node scripts/compile-contracts.ts):\n  ${problems.join('\n  ')}`);
      return 1;
    }
    console.log(`contract artifacts up to date (${files.size} files)`);
    return 0;
  }
  mkdirSync(OUT_DIR, { recursive: true });
  for (const f of stale) unlinkSync(join(OUT_DIR, f));
  for (const [f, content] of files) writeFileSync(join(OUT_DIR, f), content);
  console.log(`wrote ${files.size} files to ${OUT_DIR}`);
  return 0;
}

process.exitCode = main();
