import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { ensurePrivateFolder, readPrivateFile, writePrivateFile } from '@mrp/platform';

export interface DevSecrets {
  authJwtSecret: string;
  cronSecret: string;
  cursorSecret: string;
  /** Keeps webhook signing secrets encrypted, so the worker can sign with them. */
  webhookSecretEncryptionKey: string;
}

function newDevSecrets(): DevSecrets {
  return {
    authJwtSecret: randomBytes(32).toString('base64url'),
    cronSecret: randomBytes(24).toString('base64url'),
    cursorSecret: randomBytes(32).toString('base64url'),
    webhookSecretEncryptionKey: randomBytes(32).toString('hex'),
  };
}

/**
 * Secrets for a local `npm start` when the operator set none: generated once and kept under
 * .data/ (git-ignored), so tokens printed by one start still work after a restart. The folder and
 * the file are checked first: a link planted there must not make us read or write another file.
 */
export function loadOrCreateDevSecrets(path: string): DevSecrets {
  ensurePrivateFolder(dirname(path));
  const text = readPrivateFile(path);
  const kept = text === undefined ? {} : (JSON.parse(text) as Partial<DevSecrets>);
  // A file from an older start lacks the newer secrets: those are added, the kept ones stay.
  const fresh = newDevSecrets();
  const secrets: DevSecrets = { ...fresh, ...kept };
  if (Object.keys(fresh).every((name) => Object.hasOwn(kept, name))) return secrets;
  writePrivateFile(path, JSON.stringify(secrets, null, 2));
  return secrets;
}
