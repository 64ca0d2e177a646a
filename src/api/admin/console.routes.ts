/**
 * The operator console (DESIGN.md section 12): static files from `console/`, served as they are
 * (plain ES modules, no build step; docs/decisions/0041-operator-console.md). The directory is read
 * once at start, so only files that exist then are served and nothing outside it can be named.
 * The page talks only to `/admin/v1`; its content security policy keeps it to this origin, so
 * the console never loads anything from elsewhere (it must work without internet).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiContext } from '../context.ts';

export const CONSOLE_DIR = fileURLToPath(new URL('../../../console/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

interface Asset { body: Buffer; type: string }

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type) assets.set(name, { body: readFileSync(join(dir, name)), type });
  }
  return assets;
}

function send(reply: FastifyReply, asset: Asset) {
  return reply
    .header('content-type', asset.type)
    .header('content-security-policy', POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    // The node may be upgraded under an open console: revalidate rather than run stale code.
    .header('cache-control', 'no-cache')
    .send(asset.body);
}

export function consoleRoutes(_context: ApiContext) {
  return async (app: FastifyInstance) => {
    const assets = loadAssets(CONSOLE_DIR);
    const index = assets.get('index.html');
    if (!index) throw new Error(`console: ${CONSOLE_DIR}index.html is missing`);
    const options = { config: { auth: 'none' as const }, schema: { hide: true } as object };
    app.get('/console', options, async (_request, reply) => send(reply, index));
    app.get('/console/', options, async (_request, reply) => send(reply, index));
    app.get<{ Params: { file: string } }>('/console/:file', options, async (request, reply) => {
      const asset = assets.get(request.params.file);
      if (!asset) return reply.callNotFound();
      return send(reply, asset);
    });
  };
}
