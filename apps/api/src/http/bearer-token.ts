import type { Context } from 'koa';
import { unauthorized } from '@mrp/platform';

/** The credential of `Authorization: Bearer <token>`; anything else is a 401. */
export function bearerToken(ctx: Context): string {
  const header = ctx.get('Authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    throw unauthorized(header ? 'The Authorization header must be "Bearer <token>"' : 'Missing Authorization: Bearer <token> header');
  }
  return match[1];
}
