import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface DevSecrets {
  authJwtSecret: string;
  cronSecret: string;
  cursorSecret: string;
}

function newDevSecrets(): DevSecrets {
  return {
    authJwtSecret: randomBytes(32).toString('base64url'),
    cronSecret: randomBytes(24).toString('base64url'),
    cursorSecret: randomBytes(32).toString('base64url'),
  };
}

/**
 * Secrets for a local `npm start` when the operator set none: generated once and kept under
 * .data/ (git-ignored), so tokens printed by one start still work after a restart.
 */
export function loadOrCreateDevSecrets(path: string): DevSecrets {
  const kept = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Partial<DevSecrets>) : {};
  // A file from an older start lacks the newer secrets: those are added, the kept ones stay.
  const fresh = newDevSecrets();
  const secrets: DevSecrets = { ...fresh, ...kept };
  if (Object.keys(fresh).every((name) => Object.hasOwn(kept, name))) return secrets;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
