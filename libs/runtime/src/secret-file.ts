import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The embedded default has no secret manager: a secret (JWT signing key, webhook-secret encryption key) is created
 * once with 32 random bytes, kept in the data folder with mode 0600, and read back on the next start so tokens and
 * encrypted secrets survive a restart. Servers pass their secrets through env instead.
 */
export function readOrCreateSecretFile(path: string, bytes = 32): Buffer {
  try {
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  mkdirSync(dirname(path), { recursive: true });
  const secret = randomBytes(bytes);
  try {
    writeFileSync(path, secret.toString('hex'), { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (e) {
    // Another process created it first: use theirs.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
    throw e;
  }
}
