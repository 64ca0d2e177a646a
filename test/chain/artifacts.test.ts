// The committed contract artifacts must be exactly what contracts/*.sol compile to.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('contract artifacts', () => {
  it('match a fresh solc-js compile (scripts/compile-contracts.ts --check)', () => {
    const r = spawnSync(process.execPath, ['scripts/compile-contracts.ts', '--check'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
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
