/** The project's lint rules (scripts/lint/rules.js) through the real configuration: they fire where they must. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function ruleIds(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('rfq/layers', () => {
  const cases: Array<[file: string, source: string, allowed: boolean]> = [
    ['src/domain/rfq/x.ts', '../money/index.ts', true],
    ['src/domain/rfq/x.ts', '../../store/schema.ts', false],
    ['src/domain/auth/x.ts', 'node:crypto', true],
    ['src/domain/auth/x.ts', 'node:fs', false],
    ['src/domain/auth/x.ts', 'kysely', false],
    ['src/domain/perp/x.ts', 'viem', true],
    ['src/store/x.ts', '../domain/errors.ts', true],
    ['src/store/x.ts', '../services/deps.ts', false],
    ['src/services/rfq/x.ts', '../../store/schema.ts', true],
    ['src/services/rfq/x.ts', '../../api/context.ts', false],
    ['src/api/v1/x.ts', '../../services/deps.ts', true],
    ['src/api/v1/x.ts', '../../ws/frames.ts', false],
    ['src/api/v1/x.ts', '../../chain/faucet.ts', false],
    ['src/ws/x.ts', '../api/context.ts', false],
    ['src/chain/x.ts', '../api/context.ts', false],
    ['src/venue/x.ts', '../chain/clients.ts', false],
    ['src/client/x.ts', '../services/deps.ts', false],
    ['src/client/x.ts', '../domain/money/index.ts', true],
    ['src/runtime/x.ts', '../api/context.ts', true],
    ['src/runtime/x.ts', '../ws/hub.ts', true],
  ];
  for (const [file, source, allowed] of cases) {
    it(`${file} ${allowed ? 'may' : 'may not'} import ${source}`, async () => {
      const ids = await ruleIds(file, `import { x } from '${source}';\nexport const y = x;\n`);
      assert.deepEqual(ids.filter((id) => id === 'rfq/layers').length, allowed ? 0 : 1, ids.join(', '));
    });
  }

  it('checks re-exports and dynamic imports too', async () => {
    assert.deepEqual(await ruleIds('src/domain/x.ts', "export { y } from '../store/schema.ts';\n"), ['rfq/layers']);
    assert.deepEqual(await ruleIds('src/domain/x.ts', "export const m = await import('../store/schema.ts');\n"), ['rfq/layers']);
  });
});

describe('rfq/no-float-amount', () => {
  const flagged = [
    'export const f = (amount: string) => Number(amount);',
    'export const f = (q: { price: string }) => parseFloat(q.price);',
    'export const f = (q: { takerTotal: number }) => q.takerTotal.toFixed(2);',
    'export const f = (balance: string) => +balance;',
    'export const f = (fee: number) => Math.round(fee);',
    'export const f = (q: { makerPays: { amount: string } }) => Number.parseFloat(q.makerPays.amount);',
  ];
  for (const code of flagged) {
    it(`flags: ${code}`, async () => {
      assert.deepEqual(await ruleIds('src/services/x.ts', code + '\n'), ['rfq/no-float-amount']);
    });
  }
  const fine = [
    'export const f = (count: string) => Number(count);',
    'export const f = (sendBufferBytes: string) => Number(sendBufferBytes);',
    'export const f = (ms: number) => (ms / 1000).toFixed(1);',
  ];
  for (const code of fine) {
    it(`allows: ${code}`, async () => {
      assert.deepEqual(await ruleIds('src/services/x.ts', code + '\n'), []);
    });
  }

  it('leaves src/domain/money alone: it is where decimal strings are handled', async () => {
    assert.deepEqual(await ruleIds('src/domain/money/x.ts', 'export const f = (amount: string) => Number(amount);\n'), []);
  });
});

describe('rfq/typed-results', () => {
  const handler = (result: string) => `export const h = async (reply: { send(x: unknown): unknown }, x: object) => ${result};\n`;
  const flagged = [handler('x as never'), handler('reply.send(x as never)'), handler('x as any'), handler('<never>x'), handler('x as unknown as { id: string }')];
  for (const code of flagged) {
    it(`flags in src/api: ${code.trim()}`, async () => {
      assert.deepEqual((await ruleIds('src/api/v1/x.routes.ts', code)).filter((id) => id === 'rfq/typed-results'), ['rfq/typed-results']);
    });
  }

  it("allows a module-level interop cast, and a narrowing cast to the schema's type", async () => {
    assert.deepEqual(await ruleIds('src/api/x.ts', 'declare const m: unknown;\nexport const f = m as unknown as () => void;\n'), []);
    assert.deepEqual(await ruleIds('src/api/x.ts', handler('x as { id: string }')), []);
  });

  it('leaves code outside src/api alone', async () => {
    assert.deepEqual((await ruleIds('src/services/x.ts', handler('x as never'))).filter((id) => id === 'rfq/typed-results'), []);
  });
});
