import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite lets one process open a data folder, so the ops CLI cannot open the folder of a running `npm start`. The
 * running system instead serves an admin endpoint on loopback and publishes how to reach it in
 * `<DATA_DIR>/admin.json`, mode 0600: its URL and a random bearer token made at start. Whoever can read the file —
 * the folder's owner — may operate the system; a request without the token is refused (401), one with another
 * token too (403). The file goes when the system stops; a new start writes a new token.
 */
export interface AdminEndpoint {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
}

export const adminEndpointPath = (dataDir: string) => join(dataDir, 'admin.json');

/** Writes the file (0600 from its creation: a temporary file renamed into place) and returns its token. */
export function publishAdminEndpoint(dataDir: string, url: string): { readonly token: string; remove(): void } {
  const token = randomBytes(32).toString('base64url');
  const path = adminEndpointPath(dataDir);
  const partial = `${path}.${process.pid}.tmp`;
  rmSync(partial, { force: true });
  writeFileSync(partial, JSON.stringify({ url, token, pid: process.pid } satisfies AdminEndpoint), { mode: 0o600, flag: 'wx' });
  chmodSync(partial, 0o600); // the mode above is masked by the umask; this keeps it exactly owner-only
  renameSync(partial, path);
  return { token, remove: () => rmSync(path, { force: true }) };
}

/** The running system's endpoint, or undefined when no file is there; an unreadable file throws (EACCES). */
export function readAdminEndpoint(dataDir: string): AdminEndpoint | undefined {
  let text: string;
  try {
    text = readFileSync(adminEndpointPath(dataDir), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return JSON.parse(text) as AdminEndpoint;
}

/** `Authorization: Bearer <token>` against the published token, in constant time: 401 without one, 403 wrong. */
export function checkAdminToken(expected: string, authorization: string | undefined): 200 | 401 | 403 {
  const given = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (!given) return 401;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b) ? 200 : 403;
}
