import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from '../libs/runtime/src/testing/free-port';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');

/** `npm test`'s pre-step as the npm script runs it, with the given environment on top of this one. */
async function ensureServices(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['-r', './scripts/register.js', 'test/ensure-services.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// The shared servers of this machine are never stopped here: the start path runs against a port and a
// services folder (DOB_SERVICES_DIR) of its own.
describe("npm test's pre-step (test/ensure-services.ts)", () => {
  let servicesDir: string;
  beforeEach(() => (servicesDir = mkdtempSync(join(tmpdir(), 'dob-services-'))));
  afterEach(() => rmSync(servicesDir, { recursive: true, force: true }));

  it('passes quietly when every server answers', async () => {
    const result = await ensureServices({});
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('starts a local server that does not answer with scripts/services.sh, on the port the tests expect', async () => {
    const port = await freePort();
    try {
      const result = await ensureServices({ TEST_REDIS_URL: `redis://127.0.0.1:${port}`, DOB_SERVICES_DIR: servicesDir });
      expect(result.code).toBe(0);
      const redis = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      try {
        expect(await redis.ping()).toBe('PONG');
      } finally {
        redis.disconnect();
      }
    } finally {
      // Stops only what this folder's pid files name: the Redis started above.
      await run('bash', ['scripts/services.sh', 'stop'], { cwd: ROOT, env: { ...process.env, DOB_SERVICES_DIR: servicesDir }, timeout: 60_000 });
    }
  });

  it('stops with one line naming the server and the fix when a local one cannot be started', async () => {
    // Another program holds the port (a process of its own, as a stranger would be).
    const port = await freePort();
    const squatter = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer((s) => s.end('not redis')).listen(${port}, '127.0.0.1', () => console.log('up'))`,
    ]);
    await new Promise((resolve) => squatter.stdout.once('data', resolve));
    try {
      const result = await ensureServices({ TEST_REDIS_URL: `redis://127.0.0.1:${port}`, DOB_SERVICES_DIR: servicesDir });
      expect(result.code).toBe(1);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^npm test: Redis at redis://127\\.0\\.0\\.1:${port} does not answer .* could not be started: port ${port} is taken by .*, which is not Redis`,
        ),
      );
      expect(lines[0]).toContain('`npm run services`');
      expect(lines[0]).toContain('TEST_REDIS_URL');
    } finally {
      squatter.kill();
    }
  });

  it('stops with one line when a server on another machine does not answer (nothing to start here)', async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737), never this machine: refused or timed out, there is nothing to start here.
    const result = await ensureServices({ TEST_MONGODB_URL: 'mongodb://192.0.2.1:27017/', DOB_SERVICES_DIR: servicesDir });
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^npm test: FerretDB \(MongoDB wire\) at mongodb:\/\/192\.0\.2\.1:27017\/ does not answer \(.+\): start it there, or unset TEST_MONGODB_URL/,
      ),
    ]);
  });
});
