import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface DevSecrets {
  authJwtSecret: string;
  cronSecret: string;
}

/**
 * Secrets for a local `npm start` when the operator set none: generated once and kept under
 * .data/ (git-ignored), so tokens printed by one start still work after a restart.
 */
export function loadOrCreateDevSecrets(path: string): DevSecrets {
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as DevSecrets;
  const secrets: DevSecrets = {
    authJwtSecret: randomBytes(32).toString('base64url'),
    cronSecret: randomBytes(24).toString('base64url'),
  };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
