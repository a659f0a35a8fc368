// The web UI: the static build of src/web (dist/web, made by scripts/build-web.sh) served at `/`
// without authentication (the UI itself calls the authenticated API). Files are served by
// @fastify/static's sendFile from the not-found handler, so no route shadows the API and the auth
// hook's rule "unknown paths outside /api/ are public 404s" covers them; any other non-API GET gets
// index.html (client-side routes such as /sources/lab).
import { existsSync, statSync } from 'node:fs';
import { join, normalize, resolve, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { webDirOf } from '../core/web-dir.ts';
import { notFoundHandler } from './errors.ts';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function setUiHeaders(reply: FastifyReply, immutable: boolean): void {
  reply.header('content-security-policy', CSP);
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'same-origin');
  reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tributary</title></head>
<body><h1>Tributary</h1><p>The web interface has not been built. Run <code>bash scripts/build-web.sh</code>
(or <code>npm run build:web</code>) and reload. The HTTP API is available under <code>/api/v1/</code>.</p></body></html>`;

/** Serves the UI from `dir` (default dist/web); call before the server is ready. */
export async function registerWebUi(f: FastifyInstance, dir: string = webDirOf(process.env)): Promise<void> {
  const root = resolve(dir);
  await f.register(fastifyStatic, { root, serve: false, decorateReply: true, etag: true, lastModified: true, cacheControl: false });

  f.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    const path = decodeSafe(req.url.split('?')[0]);
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path === null || path.startsWith('/api/') || path === '/api') return notFoundHandler(req, reply);
    if (!existsSync(join(root, 'index.html'))) {
      return reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
    }
    const rel = normalize(path).replace(/^[/\\]+/, '');
    const file = resolve(root, rel);
    const inside = file === root || file.startsWith(root + sep);
    if (inside && rel !== '' && isFile(file)) {
      setUiHeaders(reply, rel.startsWith('assets' + sep) || rel.startsWith('assets/'));
      return reply.sendFile(rel, root);
    }
    // A missing asset is a real 404; any other path is a client-side route.
    if (/\.[A-Za-z0-9]{1,8}$/.test(path)) return notFoundHandler(req, reply);
    setUiHeaders(reply, false);
    return reply.sendFile('index.html', root);
  });
}

function decodeSafe(p: string): string | null {
  try {
    const d = decodeURIComponent(p);
    return d.includes('\0') ? null : d;
  } catch {
    return null;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
