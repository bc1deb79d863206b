import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Context, Next } from 'koa';
import { DomainError } from '@mrp/platform';

/** Paths the api's own doors answer: the console never shadows them, not even with its fallback. */
const API_PREFIXES = ['/api', '/rpc', '/health', '/hooks', '/cron', '/dev'];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.svg', '.txt']);

/**
 * The console's page may load its own scripts and styles and talk to this origin only; no page
 * may frame it.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface CachedFile {
  mtimeMs: number;
  size: number;
  body: Buffer;
  gzipped?: Buffer;
}

export function isApiPath(path: string): boolean {
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * Serves the built console (`apps/console/dist`) at `/`, mounted after every door of the api:
 * GET and HEAD only, never a path of the api's own. Hashed files under /assets/ are cached for a
 * year (a new build has new names); index.html is revalidated on every load, so a new build is
 * picked up at once. Any other path without a file extension is the single-page app's own route
 * and gets index.html. Files are read once per change and kept gzipped in memory (the build is
 * small).
 */
export function consoleStatic(consoleDir: string) {
  const root = resolve(consoleDir);
  const cache = new Map<string, CachedFile>();

  async function load(file: string): Promise<CachedFile | undefined> {
    const stats = await stat(file).catch(() => undefined);
    if (!stats?.isFile()) return undefined;
    const cached = cache.get(file);
    if (cached && cached.mtimeMs === stats.mtimeMs && cached.size === stats.size) return cached;
    const loaded: CachedFile = { mtimeMs: stats.mtimeMs, size: stats.size, body: await readFile(file) };
    cache.set(file, loaded);
    return loaded;
  }

  /** The file a request path names inside the build, or undefined for one that escapes it. */
  function fileFor(path: string): string | undefined {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return undefined;
    }
    if (decoded.includes('\0') || decoded.split('/').some((segment) => segment.startsWith('.'))) return undefined;
    const file = resolve(root, `.${decoded}`);
    return file.startsWith(`${root}${sep}`) ? file : undefined;
  }

  return async (ctx: Context, next: Next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path)) return next();
    const looksLikeFile = extname(ctx.path) !== '';
    const requested = ctx.path === '/' ? undefined : fileFor(ctx.path);
    let file = requested ? await load(requested) : undefined;
    let served = requested;
    let fallback = false;
    if (!file) {
      // A missing asset is a 404, not the app: a script tag must not receive HTML.
      if (looksLikeFile) return next();
      fallback = true;
      served = join(root, 'index.html');
      file = await load(served);
      if (!file) throw new DomainError('service_unavailable', 'The console is not built: run npm run build:console (npm start builds it)');
    }
    const extension = extname(served as string);
    const immutable = !fallback && ctx.path.startsWith('/assets/');
    ctx.status = 200;
    ctx.type = CONTENT_TYPES[extension] ?? 'application/octet-stream';
    ctx.set('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (extension === '.html') {
      ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Frame-Options', 'DENY');
    }
    ctx.set('ETag', `W/"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`);
    ctx.lastModified = new Date(file.mtimeMs);
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    if (COMPRESSIBLE.has(extension)) {
      ctx.vary('Accept-Encoding');
      if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
        file.gzipped ??= gzipSync(file.body);
        ctx.set('Content-Encoding', 'gzip');
        ctx.body = file.gzipped;
        return;
      }
    }
    ctx.body = file.body;
  };
}
