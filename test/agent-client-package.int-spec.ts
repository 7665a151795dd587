import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');

/**
 * The agent client cannot drift from the API: its committed OpenAPI document and generated types must be exactly
 * what `npm run client:generate` produces from the API's own composition now (the generator's --check mode,
 * the same code path as a regeneration), and the package must build alone with its own tsconfig, as it is published.
 */
describe('agent client package', () => {
  jest.setTimeout(180_000);

  it('is generated from the OpenAPI document the API serves (regeneration yields no change)', async () => {
    const { stdout } = await run(process.execPath, ['-r', '@swc-node/register', 'scripts/generate-agent-client.ts', '--check'], { cwd: ROOT });
    expect(stdout).toContain("agent client types match the API's OpenAPI document");
  });

  it('builds on its own with tsc (its tsconfig, no path aliases)', async () => {
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'packages/agent-client/tsconfig.build.json', '--noEmit'], { cwd: ROOT });
  });
});
