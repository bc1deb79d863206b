import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Router from '@koa/router';
import type { Context } from 'koa';
import { DomainError } from '@mrp/platform';
import { PUBLIC_API_PREFIX } from '../route-table';

/**
 * Only this origin: scripts from here and nowhere else (no inline or eval'd code), the document
 * fetched from here, no frames, no forms. Styles may be inline as well: Redoc (styled-components)
 * writes its styles into <style> elements at run time, some before it can be handed a nonce. Its
 * search worker (a blob: URL) is switched off in reference-page.js rather than allowed.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  /** `<name>.<content hash>.<ext>`: a new version is a new URL, so browsers may keep one for a year. */
  fileName: string;
  contentType: string;
  body: Buffer;
  gzipped: Buffer;
}

interface ReferencePage {
  html: Buffer;
  assets: Map<string, Asset>;
}

async function asset(file: string, name: string, extension: string, contentType: string): Promise<Asset> {
  const body = await readFile(file);
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { fileName: `${name}.${hash}.${extension}`, contentType, body, gzipped: gzipSync(body) };
}

async function loadPage(assetsDir: string): Promise<ReferencePage> {
  const redoc = await asset(require.resolve('redoc/bundles/redoc.standalone.js'), 'redoc.standalone', 'js', 'text/javascript; charset=utf-8');
  const page = await asset(join(assetsDir, 'reference-page.js'), 'reference-page', 'js', 'text/javascript; charset=utf-8');
  const styles = await asset(join(assetsDir, 'reference-page.css'), 'reference-page', 'css', 'text/css; charset=utf-8');
  const urlOf = (file: Asset) => `${PUBLIC_API_PREFIX}/docs/${file.fileName}`;
  const template = await readFile(join(assetsDir, 'reference-page.html'), 'utf8');
  const html = template.replace('{{redoc}}', urlOf(redoc)).replace('{{page}}', urlOf(page)).replace('{{styles}}', urlOf(styles));
  return { html: Buffer.from(html), assets: new Map([redoc, page, styles].map((file) => [file.fileName, file])) };
}

function sendAsset(ctx: Context, file: Asset): void {
  ctx.vary('Accept-Encoding');
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = file.contentType;
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = file.gzipped;
  } else {
    ctx.body = file.body;
  }
}

/**
 * `GET /api/v1/docs`: the API reference, rendered in the browser by Redoc from the installed
 * package (no CDN), from this origin only. Without a key it shows the generic document; a key
 * pasted into the page is sent in the Authorization header of the fetch of openapi.json, and the
 * page then shows the organization's typed document. Files are read from `assetsDir` (this
 * folder: the app's entry names it, since a bundle has no folder of its own) and compressed on
 * first use.
 */
export function referencePageRouter(assetsDir: string): Router {
  const router = new Router({ prefix: PUBLIC_API_PREFIX, sensitive: true });
  let loaded: Promise<ReferencePage> | undefined;
  const reference = () => (loaded ??= loadPage(assetsDir));

  router.get('/docs', async (ctx) => {
    const { html } = await reference();
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  router.get('/docs/:file', async (ctx) => {
    const file = (await reference()).assets.get(ctx.params['file']);
    if (!file) throw new DomainError('not_found', 'No such file');
    sendAsset(ctx, file);
  });
  return router;
}
