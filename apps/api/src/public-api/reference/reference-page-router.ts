import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Router from '@koa/router';
import type { Context } from 'koa';
import { DomainError } from '@mrp/platform';
import { PUBLIC_API_PREFIX } from '../route-table';

/**
 * Only this origin: scripts from here and nowhere else (no inline or eval'd code), the document
 * fetched from here, no frames, no forms. Styles from here, or in a <style> element carrying this
 * answer's nonce: Redoc (styled-components) writes its styles into <style> elements at run time,
 * and the page's scripts give those the nonce (reference-page-nonce.js); a <style> or a style
 * attribute that text of the document smuggles into the page has none and is ignored. Its
 * search worker (a blob: URL) is switched off in reference-page.js rather than allowed.
 */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Redoc's menu footer shows Redocly's logo from their CDN, which the policy refuses (an error in
 * the browser's console on every load). The served bundle names an empty image in its place.
 */
const REDOCLY_LOGO_URL = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const NO_IMAGE = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 width=%220%22 height=%220%22/%3E';

interface Asset {
  /** `<name>.<content hash>.<ext>`: a new version is a new URL, so browsers may keep one for a year. */
  fileName: string;
  contentType: string;
  body: Buffer;
  gzipped: Buffer;
}

interface ReferencePage {
  /** The page, but for each answer's nonce. */
  html(nonce: string): string;
  assets: Map<string, Asset>;
}

async function asset(file: string, name: string, extension: string, contentType: string, edit?: (text: string) => string): Promise<Asset> {
  const body = edit ? Buffer.from(edit(await readFile(file, 'utf8'))) : await readFile(file);
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { fileName: `${name}.${hash}.${extension}`, contentType, body, gzipped: gzipSync(body) };
}

async function loadPage(assetsDir: string): Promise<ReferencePage> {
  const redoc = await asset(require.resolve('redoc/bundles/redoc.standalone.js'), 'redoc.standalone', 'js', 'text/javascript; charset=utf-8', (text) => {
    if (!text.includes(REDOCLY_LOGO_URL)) throw new Error(`The Redoc bundle no longer names ${REDOCLY_LOGO_URL}: see reference-page-router.ts`);
    return text.replaceAll(REDOCLY_LOGO_URL, NO_IMAGE);
  });
  const nonceScript = await asset(join(assetsDir, 'reference-page-nonce.js'), 'reference-page-nonce', 'js', 'text/javascript; charset=utf-8');
  const page = await asset(join(assetsDir, 'reference-page.js'), 'reference-page', 'js', 'text/javascript; charset=utf-8');
  const styles = await asset(join(assetsDir, 'reference-page.css'), 'reference-page', 'css', 'text/css; charset=utf-8');
  const urlOf = (file: Asset) => `${PUBLIC_API_PREFIX}/docs/${file.fileName}`;
  const template = await readFile(join(assetsDir, 'reference-page.html'), 'utf8');
  const [before, after] = template
    .replace('{{nonce-script}}', urlOf(nonceScript))
    .replace('{{redoc}}', urlOf(redoc))
    .replace('{{page}}', urlOf(page))
    .replace('{{styles}}', urlOf(styles))
    .split('{{nonce}}');
  return { html: (nonce) => `${before}${nonce}${after}`, assets: new Map([nonceScript, redoc, page, styles].map((file) => [file.fileName, file])) };
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
    // A new one per answer: a nonce that could be learnt once would let injected styles in.
    const nonce = randomBytes(18).toString('base64');
    ctx.set('Content-Security-Policy', contentSecurityPolicy(nonce));
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html(nonce);
  });
  router.get('/docs/:file', async (ctx) => {
    const file = (await reference()).assets.get(ctx.params['file']);
    if (!file) throw new DomainError('not_found', 'No such file');
    sendAsset(ctx, file);
  });
  return router;
}
