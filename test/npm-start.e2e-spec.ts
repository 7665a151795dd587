import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startApp, until, type AppProcess } from './app-processes';

/**
 * The README's promise, as a user runs it: `npm start` with no servers and no variables but its own folder and ports,
 * ready on /health; Ctrl-C (SIGINT to the process group) stops it cleanly — the data folder's LOCK is released —
 * and the next start on the same folder resumes.
 */
describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-e2e-'));
  const running: AppProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((a) => a.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts on embedded defaults, stops cleanly on Ctrl-C, and starts again on the same folder', async () => {
    for (let run = 1; run <= 2; run++) {
      const port = await freePort();
      const app = startApp('start', { DATA_DIR: dataDir, PORT: String(port), DEVNET_PORT: String(await freePort()) });
      running.push(app);
      await until(`npm start (run ${run}) ready`, async () => (await fetch(`http://127.0.0.1:${port}/health`)).status === 200, 150_000, [app]);
      expect(existsSync(join(dataDir, 'LOCK'))).toBe(true);
      expect(await app.stop(30_000, 'SIGINT')).toBe(true);
      expect(app.output()).toContain('all: SIGINT, stopping');
      expect(existsSync(join(dataDir, 'LOCK'))).toBe(false);
    }
  });
});
