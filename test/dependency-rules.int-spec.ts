import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The dependency rules (.dependency-cruiser.js, docs/ARCHITECTURE.md#dependency-rules) run by `npm run lint`:
 * the real tree passes, and a copy of it with one deliberate breach per rule fails, naming the rule and the file.
 * The one-configuration rule (no `process.env` outside the config module) is ESLint's, since dependency-cruiser
 * sees imports only: it is proven the same way.
 */
const ROOT = join(__dirname, '..');
const COPIED = [
  'apps',
  'libs',
  'packages',
  'test',
  'bench',
  'scripts',
  'examples',
  'tsconfig.json',
  'package.json',
  '.dependency-cruiser.js',
  'eslint.config.mjs',
];

function lintDeps(cwd: string): { status: number | null; output: string } {
  const r = spawnSync('npm', ['run', '-s', 'lint:deps'], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** ESLint on the given files of a tree (the config is the tree's eslint.config.mjs). */
function lintFiles(cwd: string, files: readonly string[]): { status: number | null; output: string } {
  const r = spawnSync(join(ROOT, 'node_modules/.bin/eslint'), ['--no-warn-ignored', ...files], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Production files reading the environment themselves (each must fail), and the places allowed to (must pass). */
const ENV_BREACHES: { file: string; source: string }[] = [
  { file: 'apps/projector/src/zz-env.ts', source: 'export const port = process.env.PORT;\n' },
  { file: 'libs/webhooks/src/zz-env.ts', source: 'const { env } = process;\nexport const key = env.WEBHOOK_SECRET_KEY;\n' },
];
const ENV_ALLOWED: { file: string; source: string }[] = [
  { file: 'libs/webhooks/src/zz-env.spec.ts', source: "it('reads', () => expect(process.env.HOME).toBeDefined());\n" },
  { file: 'libs/webhooks/src/testing/zz-env.ts', source: 'export const url = process.env.TEST_DATABASE_URL;\n' },
];

/** Each breach: a file written into the copy, and the rule that must name it (a cycle is named once, from its first file). */
const BREACHES: { file: string; source: string; rule?: string }[] = [
  // a cycle between two modules of one lib
  { file: 'libs/domain/src/zz-cycle-a.ts', source: "import { b } from './zz-cycle-b';\nexport const a = (): number => b() + 1;\n", rule: 'no-circular' },
  { file: 'libs/domain/src/zz-cycle-b.ts', source: "import { a } from './zz-cycle-a';\nexport const b = (): number => a() - 1;\n" },
  // an app reaching into another app instead of a lib
  { file: 'apps/projector/src/zz-app.ts', source: "export { withOpsContext } from '../../ops/src/ops-context';\n", rule: 'app-imports-app' },
  // npm start (apps/all) too: it composes the other apps through libs/compositions, never their files
  { file: 'apps/all/src/zz-all.ts', source: "import '../../api/src/main';\n", rule: 'app-imports-app' },
  // a lib importing an app
  { file: 'libs/webhooks/src/zz-lib.ts', source: "export { withOpsContext } from '../../../apps/ops/src/ops-context';\n", rule: 'lib-imports-app' },
  // production code loading the chain simulator
  { file: 'apps/notifier/src/zz-devnet.ts', source: "export { startDevnet } from '@dob/devnet';\n", rule: 'devnet-outside-dev-compositions' },
  // the domain importing something of ours
  { file: 'libs/domain/src/zz-domain.ts', source: "export type { SqlDatabase } from '@dob/sql';\n", rule: 'domain-imports-ours' },
  // a lib using a lib it did not declare
  { file: 'libs/sql/src/zz-undeclared.ts', source: "export * from '@dob/signatures';\n", rule: 'lib-deps:sql' },
  // an area of the API reaching into another area instead of a shared folder
  { file: 'libs/api-http/src/portfolio/zz-area.ts', source: "export { PoolsController } from '../pools/pools.controller';\n", rule: 'api-area-imports-area' },
  // a shared folder of the API depending on one area
  { file: 'libs/api-http/src/openapi/zz-shared.ts', source: "export { tradingModuleParts } from '../trading';\n", rule: 'api-shared-imports-area' },
  // the runtime every app loads depending on trading again (it did, for two types of chain-config.ts)
  { file: 'libs/runtime/src/zz-trading.ts', source: "export type { StellarNetwork } from '@dob/trading';\n", rule: 'lib-deps:runtime' },
  // ...which the notifier's library then reaches through a lib it may use
  {
    file: 'libs/webhooks/src/zz-notifier.ts',
    source: "export type { StellarNetwork } from '../../runtime/src/zz-trading';\n",
    rule: 'notifier-reaches-trading',
  },
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

  it('fails on process.env outside the config module (ESLint), and allows it in tests and test support', () => {
    for (const b of [...ENV_BREACHES, ...ENV_ALLOWED]) writeFileSync(join(copy, b.file), b.source);
    const r = lintFiles(
      copy,
      [...ENV_BREACHES, ...ENV_ALLOWED].map((b) => b.file),
    );
    expect(r.status).not.toBe(0);
    for (const b of ENV_BREACHES)
      expect(r.output).toMatch(new RegExp(`${b.file.replace(/[.]/g, '\\.')}\\s+\\d+:\\d+\\s+error\\s+.*process\\.env.*no-restricted-properties`));
    for (const b of ENV_ALLOWED) expect(r.output).not.toContain(b.file);
  });

  it('passes ESLint on the real config module and the apps that load it', () => {
    const r = lintFiles(ROOT, ['libs/runtime/src/app-config.ts', 'apps/all/src/system.ts', 'apps/all/src/main.ts', 'libs/kafka-relay/src/config.ts']);
    expect(r.output).not.toContain('no-restricted-properties');
    expect(r.status).toBe(0);
  });
});
