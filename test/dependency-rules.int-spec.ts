import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The dependency rules (.dependency-cruiser.js, docs/ARCHITECTURE.md#dependency-rules) run by `npm run lint`:
 * the real tree passes, and a copy of it with one deliberate breach per rule fails, naming the rule and the file.
 */
const ROOT = join(__dirname, '..');
const COPIED = ['apps', 'libs', 'packages', 'test', 'bench', 'scripts', 'examples', 'tsconfig.json', 'package.json', '.dependency-cruiser.js'];

function lintDeps(cwd: string): { status: number | null; output: string } {
  const r = spawnSync('npm', ['run', '-s', 'lint:deps'], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Each breach: a file written into the copy, and the rule that must name it (a cycle is named once, from its first file). */
const BREACHES: { file: string; source: string; rule?: string }[] = [
  // a cycle between two modules of one lib
  { file: 'libs/domain/src/zz-cycle-a.ts', source: "import { b } from './zz-cycle-b';\nexport const a = (): number => b() + 1;\n", rule: 'no-circular' },
  { file: 'libs/domain/src/zz-cycle-b.ts', source: "import { a } from './zz-cycle-a';\nexport const b = (): number => a() - 1;\n" },
  // an app reaching into another app instead of a lib
  { file: 'apps/projector/src/zz-app.ts', source: "export { startApi } from '../../api/src/bootstrap';\n", rule: 'app-imports-app' },
  // apps/all reaching past the API's embedding entry
  { file: 'apps/all/src/zz-all.ts', source: "export { createApiAuth } from '../../api/src/auth';\n", rule: 'all-embeds-only-the-api-entry' },
  // a lib importing an app
  { file: 'libs/webhooks/src/zz-lib.ts', source: "export { startApi } from '../../../apps/api/src/bootstrap';\n", rule: 'lib-imports-app' },
  // production code loading the chain simulator
  { file: 'apps/notifier/src/zz-devnet.ts', source: "export { startDevnet } from '@dob/devnet';\n", rule: 'devnet-outside-dev-compositions' },
  // the domain importing something of ours
  { file: 'libs/domain/src/zz-domain.ts', source: "export type { SqlDatabase } from '@dob/sql';\n", rule: 'domain-imports-ours' },
  // a lib using a lib it did not declare
  { file: 'libs/sql/src/zz-undeclared.ts', source: "export * from '@dob/signatures';\n", rule: 'lib-deps:sql' },
  // production code needing a test helper
  { file: 'libs/trading/src/zz-testing.ts', source: "export * from '../../read-models/src/testing/chain-scenario';\n", rule: 'production-imports-tests' },
];

describe('dependency rules (npm run lint)', () => {
  let copy: string;

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'dob-deps-'));
    for (const p of COPIED) cpSync(join(ROOT, p), join(copy, p), { recursive: true, filter: (src) => !/\/(node_modules|dist)(\/|$)/.test(src) });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  });

  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('passes on the real tree: no cycle, every import allowed', () => {
    const r = lintDeps(ROOT);
    expect(r.output).toContain('no dependency violations found');
    expect(r.status).toBe(0);
  });

  it('passes on the untouched copy, so the failures below come from the breaches alone', () => {
    const r = lintDeps(copy);
    expect(r.output).toContain('no dependency violations found');
    expect(r.status).toBe(0);
  });

  it('fails on a deliberate cycle, app → app import and every other breach, naming the rule and the file', () => {
    for (const b of BREACHES) writeFileSync(join(copy, b.file), b.source);
    // tests may compose what production may not: a test beside the indexer that starts a devnet stays allowed
    writeFileSync(join(copy, 'libs/indexer/src/zz-devnet.int-spec.ts'), "import { startDevnet } from '@dob/devnet';\nvoid startDevnet;\n");
    const r = lintDeps(copy);
    expect(r.status).not.toBe(0);
    for (const b of BREACHES) if (b.rule) expect(r.output).toMatch(new RegExp(`error ${b.rule}: ${b.file.replace(/[.]/g, '\\.')}`));
    expect(r.output).toMatch(/error no-circular: libs\/domain\/src\/zz-cycle-a\.ts →\s+libs\/domain\/src\/zz-cycle-b\.ts/);
    expect(r.output).not.toContain('zz-devnet.int-spec.ts');
  });
});
