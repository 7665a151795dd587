import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * nest-cli.json describes the monorepo for the Nest CLI (no npm script uses it: builds are `tsc`, starts are
 * swc-node; see docs/ARCHITECTURE.md): it must list every app and lib, each once, at paths that exist.
 */
const ROOT = join(__dirname, '..');
const dirs = (parent: string) =>
  readdirSync(join(ROOT, parent), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

describe('nest-cli.json', () => {
  const text = readFileSync(join(ROOT, 'nest-cli.json'), 'utf8');
  const projects: Record<string, { type: string; root: string; entryFile: string; sourceRoot: string }> = JSON.parse(text).projects;

  it('names no project twice (JSON.parse would silently keep the last)', () => {
    const keys = [...text.matchAll(/^ {4}"([^"]+)":/gm)].map((m) => m[1]);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(Object.keys(projects).sort());
  });

  it('lists every app and every lib, with entry files that exist', () => {
    const listed = Object.values(projects)
      .map((p) => p.root)
      .sort();
    expect(listed).toEqual([...dirs('apps').map((a) => `apps/${a}`), ...dirs('libs').map((l) => `libs/${l}`)].sort());
    for (const p of Object.values(projects)) expect(existsSync(join(ROOT, p.sourceRoot, `${p.entryFile}.ts`))).toBe(true);
  });
});
