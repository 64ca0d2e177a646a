// The Containerfile and compose.yaml, checked without a container runtime (scripts/container-test.ts
// builds and runs the image where podman works): what the image runs, as whom, what it checks,
// and that what it copies is all the production node needs.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const containerfile = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
const compose = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

/** Instructions of the Containerfile, continuation lines joined, comments dropped. */
const instructions = containerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map((l) => {
    const [op, ...rest] = l.split(/\s+/);
    return { op: op!.toUpperCase(), args: rest.join(' ') };
  });
const lastStage = instructions.slice(instructions.findLastIndex((i) => i.op === 'FROM'));
const one = (op: string) => {
  const found = lastStage.filter((i) => i.op === op);
  assert.equal(found.length, 1, `one ${op} in the runtime stage`);
  return found[0]!.args;
};
const exec = (args: string) => JSON.parse(args) as string[];

/** Runs the HEALTHCHECK command here (this Node.js for the image's), asynchronously: the server it asks is in this process. */
async function exitCodeOf(command: string[], port: string): Promise<number> {
  try {
    await promisify(execFile)(process.execPath, command.slice(1), { env: { ...process.env, PORT: port }, timeout: 10_000 });
    return 0;
  } catch (error) {
    return (error as { code?: number }).code ?? -1;
  }
}

const servers: Server[] = [];
after(() => { for (const s of servers) s.close(); });

describe('Containerfile', () => {
  it('takes the base image as a build argument defaulting to a slim Node or Debian image', () => {
    const arg = instructions.find((i) => i.op === 'ARG' && i.args.startsWith('BASE_IMAGE='));
    assert.ok(arg, 'ARG BASE_IMAGE=...');
    assert.match(arg.args, /^BASE_IMAGE=(node:24-slim|debian:bookworm-slim)$/);
    assert.equal(one('FROM'), '${BASE_IMAGE}');
  });

  it('runs the node in production mode, as PID 1, as a non-root user', () => {
    assert.deepEqual(exec(one('ENTRYPOINT')), ['/app/node_modules/.bin/node', 'src/runtime/main.ts']);
    assert.match(one('ENV'), /\bRFQ_MODE=production\b/);
    assert.match(one('ENV'), /\bHOST=0\.0\.0\.0\b/);
    const user = one('USER');
    assert.match(user, /^[1-9][0-9]*(:[1-9][0-9]*)?$/, `numeric non-root USER, got ${user}`);
    assert.ok(lastStage.some((i) => i.op === 'RUN' && i.args.includes(`--uid ${user.split(':')[0]}`)), 'the user is created in the image');
  });

  it('copies everything the production node reads, and the build context lets it through', () => {
    const ignore = readFileSync(join(ROOT, '.containerignore'), 'utf8').split('\n').filter((l) => l.startsWith('!')).map((l) => l.slice(1).replace(/\/$/, ''));
    const copied = lastStage.filter((i) => i.op === 'COPY' && !i.args.startsWith('--from')).map((i) => i.args.split(/\s+/).slice(0, -1)).flat();
    for (const path of copied) {
      assert.ok(existsSync(join(ROOT, path)), `${path} exists`);
      assert.ok(ignore.includes(path), `.containerignore lets ${path} in`);
    }
    // The top-level directories of every file main.ts loads, following relative imports (and the
    // console directory it serves through `new URL`).
    const read = new Set<string>();
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      read.add(file.slice(ROOT.length).split('/')[0]!);
      if (!file.endsWith('.ts')) return;
      for (const [, target] of readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\(|new URL\()\s*'(\.{1,2}\/[^']+)'/g)) {
        visit(join(dirname(file), target!));
      }
    };
    visit(join(ROOT, 'src/runtime/main.ts'));
    for (const dir of read) assert.ok(copied.includes(dir), `the node reads ${dir}/, which the image must copy`);
  });

  it('installs production dependencies only, and src/ imports no other package', () => {
    assert.ok(instructions.some((i) => i.op === 'RUN' && /npm ci --omit=dev\b/.test(i.args)));
    const builtin = (name: string) => name.startsWith('node:');
    const missing = new Set<string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const file = join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (name.endsWith('.ts')) {
          for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^import\s+(?!type\b)[^'"]*?from\s+'([^.'][^']*)'/gm)) {
            const pkgName = spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!;
            if (!builtin(spec!) && !(pkgName in pkg.dependencies)) missing.add(`${pkgName} (${file.slice(ROOT.length)})`);
          }
        }
      }
    };
    walk(join(ROOT, 'src'));
    assert.deepEqual([...missing], []);
    assert.ok('node' in pkg.dependencies, 'the npm node package brings the Node.js binary the ENTRYPOINT runs');
  });

  it('HEALTHCHECK asks /readyz and fails unless it answers 2xx', async () => {
    const check = exec(one('HEALTHCHECK').replace(/^(--\S+\s+)*CMD\s+/, ''));
    assert.equal(check[0], '/app/node_modules/.bin/node');
    assert.ok(check.join(' ').includes('/readyz'));
    for (const [status, exitCode] of [[200, 0], [503, 1]] as const) {
      const paths: string[] = [];
      const server = createServer((req, res) => { paths.push(req.url!); res.writeHead(status).end(); });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      assert.equal(await exitCodeOf(check, String(port)), exitCode, `readyz ${status}`);
      assert.deepEqual(paths, ['/readyz']);
      server.close();
    }
    assert.equal(await exitCodeOf(check, '1'), 1, 'no answer is unhealthy');
  });
});

describe('compose.yaml', () => {
  it('runs the image built from the Containerfile with PostgreSQL, the node waiting for a healthy database', () => {
    assert.match(compose, /^ {2}rfq:\n(?: {4}.*\n| {6,}.*\n)*? {6}dockerfile: Containerfile$/m);
    assert.match(compose, /^ {2}db:\n {4}image: postgres:\d+$/m);
    assert.match(compose, /DATABASE_URL: postgres:\/\/rfq:\$\{RFQ_DB_PASSWORD[^}]*\}@db:5432\/rfq$/m);
    assert.match(compose, /depends_on:\n {6}db:\n {8}condition: service_healthy/);
    assert.match(compose, /test: \["CMD", "pg_isready"/);
  });
});
