import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DASHBOARD_FILE } from '../scripts/generate-dashboard';
import { ROOT } from './app-processes';

const run = promisify(execFile);
const check = (...args: string[]) =>
  run(process.execPath, ['-r', '@swc-node/register', 'scripts/generate-dashboard.ts', '--check', ...args], { cwd: ROOT, timeout: 60_000 });

/**
 * The committed Grafana dashboard (ops/grafana/dob-system.json) is exactly what scripts/generate-dashboard.ts builds
 * (`npm run dashboard:generate -- --check`, the generator's own code path), and the check catches an edit. Its
 * queries are checked against a started system's /metrics in test/alerts.e2e-spec.ts.
 */
describe('Grafana dashboard', () => {
  jest.setTimeout(120_000);

  it('is generated: the committed JSON equals a regeneration', async () => {
    const { stdout } = await check();
    expect(stdout).toContain('dob-system.json is up to date');
  });

  it('fails the drift check when the JSON was edited by hand', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dashboard-drift-'));
    try {
      const edited = join(dir, 'dob-system.json');
      writeFileSync(edited, readFileSync(DASHBOARD_FILE, 'utf8').replace('indexer_next_ledger', 'indexer_cursor_ledger'));
      await expect(check('--file', edited)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('npm run dashboard:generate') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
