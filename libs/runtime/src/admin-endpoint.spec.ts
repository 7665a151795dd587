import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminEndpointPath, checkAdminToken, publishAdminEndpoint, readAdminEndpoint } from './admin-endpoint';

describe('the admin endpoint file', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'admin-endpoint-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is written owner-only with a fresh token each start, read back, and removed', () => {
    const first = publishAdminEndpoint(dataDir, 'http://127.0.0.1:1234');
    expect(statSync(adminEndpointPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(readAdminEndpoint(dataDir)).toEqual({ url: 'http://127.0.0.1:1234', token: first.token, pid: process.pid });
    const second = publishAdminEndpoint(dataDir, 'http://127.0.0.1:1235');
    expect(second.token).not.toBe(first.token);
    expect(second.token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes
    second.remove();
    expect(readAdminEndpoint(dataDir)).toBeUndefined();
  });

  it('stays owner-only when an older, wider file is replaced', () => {
    writeFileSync(adminEndpointPath(dataDir), '{}', { mode: 0o644 });
    publishAdminEndpoint(dataDir, 'http://127.0.0.1:1');
    expect(statSync(adminEndpointPath(dataDir)).mode & 0o777).toBe(0o600);
  });
});

describe('checkAdminToken', () => {
  it('answers 401 without a bearer token, 403 with another one, 200 with the published one', () => {
    expect(checkAdminToken('secret', undefined)).toBe(401);
    expect(checkAdminToken('secret', 'secret')).toBe(401);
    expect(checkAdminToken('secret', 'Basic c2VjcmV0')).toBe(401);
    expect(checkAdminToken('secret', 'Bearer secreT')).toBe(403);
    expect(checkAdminToken('secret', 'Bearer secret2')).toBe(403);
    expect(checkAdminToken('secret', 'Bearer secret')).toBe(200);
  });
});
