// The committed contract artifacts must be exactly what contracts/*.sol and Uniswap's Permit2
// (from the pinned @uniswap/v4-periphery) compile to, and Permit2's must be the code Uniswap deployed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getContractAddress, type Hex } from 'viem';
import { permit2Bytecode } from '../../src/chain/artifacts/index.ts';
import { CREATE2_DEPLOYER, PERMIT2_ADDRESS } from '../../src/chain/deploy.ts';
import { permit2RuntimeCode } from '../../src/chain/permit2-code.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const permit2Package = join(root, 'node_modules/@uniswap/v4-periphery/lib/permit2');

const check = (env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['scripts/compile-contracts.ts', '--check'], { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });

/** A hex literal from a file of the permit2 package, found by the text just before it. */
function packageHex(file: string, before: RegExp): Hex {
  const m = new RegExp(`${before.source}([0-9a-fA-F]+)`).exec(readFileSync(join(permit2Package, file), 'utf8'));
  assert.ok(m, `${file}: ${before.source}`);
  return `0x${m[1]!.toLowerCase()}`;
}

describe('contract artifacts', () => {
  it('match a fresh solc-js compile (scripts/compile-contracts.ts --check)', () => {
    const r = check();
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  });

  it('each artifact carries abi, bytecode and sourceHash', () => {
    for (const name of ['Permit2', 'RfqMakerWrapper', 'RfqMakerWrapperFactory', 'TestToken', 'XchangeAdapter']) {
      const a = JSON.parse(readFileSync(new URL(`../../src/chain/artifacts/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
      assert.ok(Array.isArray(a.abi), name);
      assert.match(String(a.bytecode), /^0x[0-9a-f]+$/, name);
      assert.match(String(a.deployedBytecode), /^0x[0-9a-f]+$/, name);
      assert.match(String(a.sourceHash), /^0x[0-9a-f]{64}$/, name);
    }
  });
});

describe("Uniswap's Permit2 artifact", () => {
  it('is the init code of the canonical deployment: CREATE2 with Uniswap\'s salt lands at the canonical address', () => {
    // The salt of Uniswap's own deployment script, through the same deterministic deployer.
    const salt = packageHex('script/DeployPermit2.s.sol', /SALT = bytes32\(uint256\(0x/);
    assert.equal(getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: `0x${salt.slice(2).padStart(64, '0')}`, bytecode: permit2Bytecode }), PERMIT2_ADDRESS);
  });

  it('with its immutables filled in, is the runtime code Uniswap publishes', () => {
    // Uniswap's test helper etches runtime code that a constructor left on forge's test chain
    // (chain id 31337) at forge's first test deployment address, both cached in its immutables.
    const published = packageHex('test/utils/DeployPermit2.sol', /bytes memory bytecode =\s*hex"/);
    assert.equal(permit2RuntimeCode(31337, '0xF62849F9A0B5Bf2913b396098F7c7019b51A820a'), published);
    assert.notEqual(permit2RuntimeCode(31337, PERMIT2_ADDRESS), published);
  });

  it('is stale when Permit2\'s sources or its foundry.toml settings change', () => {
    const edits: [string, (dir: string) => void][] = [
      ['a source file', (dir) => appendFileSync(join(dir, 'src/SignatureTransfer.sol'), '\n// edited\n')],
      ['foundry.toml', (dir) => writeFileSync(join(dir, 'foundry.toml'), readFileSync(join(dir, 'foundry.toml'), 'utf8').replace('optimizer_runs = 1000000', 'optimizer_runs = 200'))],
    ];
    for (const [i, [what, edit]] of edits.entries()) {
      const dir = mkdtempSync(join(tmpdir(), 'permit2-'));
      try {
        for (const part of ['src', 'lib/solmate/src', 'foundry.toml', 'remappings.txt']) cpSync(join(permit2Package, part), join(dir, part), { recursive: true });
        if (i === 0) assert.equal(check({ PERMIT2_PACKAGE_DIR: dir }).status, 0, 'an unedited copy of the package checks clean');
        edit(dir);
        const r = check({ PERMIT2_PACKAGE_DIR: dir });
        assert.equal(r.status, 1, what);
        assert.match(r.stderr, /out of date: Permit2\.json/, what);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
