/**
 * Top self-time functions of a V8 CPU profile (`node --cpu-prof`), grouped by function and file, and by package:
 *   node bench/cpu-profile-top.ts <file.cpuprofile> [top=25] [lastSeconds]
 * lastSeconds keeps only the samples of the profile's last N seconds (a bench whose measured phase runs last).
 * Used to justify each performance change (docs/benchmarks.md) without committing the large profile itself.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, lastArg] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-top.ts <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
const at: number[] = [];
profile.timeDeltas.reduce((t, d, i) => (at[i] = t + d), 0);
const from = lastArg ? at.at(-1)! - Number(lastArg) * 1e6 : -Infinity;
profile.samples.forEach((id, i) => {
  if (at[i]! >= from) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

const place = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\//, '')
    .replace(/^.*\/(libs|apps|bench)\//, '$1/');
const pkg = (url: string) => {
  if (!url) return '(native/gc/idle)';
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  return /\/(libs\/[^/]+|apps\/[^/]+|bench)\//.exec(url)?.[1] ?? url;
};
const fns = new Map<string, number>();
const pkgs = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  const f = `${n.callFrame.functionName || '(anonymous)'} ${place(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  fns.set(f, (fns.get(f) ?? 0) + us);
  pkgs.set(pkg(n.callFrame.url), (pkgs.get(pkg(n.callFrame.url)) ?? 0) + us);
}
const pct = (us: number) => ((100 * us) / total).toFixed(1).padStart(5) + ' %';
const top = Number(topArg ?? 25);
console.log(`total sampled ${(total / 1e6).toFixed(2)} s`);
console.log('\nby package:');
for (const [k, us] of [...pkgs].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${pct(us)}  ${k}`);
console.log('\nby function (self time):');
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
