/**
 * Top self-time functions of a V8 CPU profile (`node --cpu-prof`), grouped by function and file, and by package:
 *   node bench/cpu-profile-top.ts <file.cpuprofile> [top=25] [lastSeconds]
 * lastSeconds keeps only the samples of the profile's last N seconds (a bench whose measured phase runs last).
 * A sampling heap profile (`.heapprofile`, e.g. REBUILD_ALLOCATION_PROFILE of bench/rebuild-child.ts) is summarised
 * the same way by the bytes each function allocated.
 * Used to justify each performance change (docs/benchmarks-journal.md) without committing the large profile itself.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Node {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}
interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children?: HeapNode[];
}

const [file, topArg, lastArg] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-top.ts <file.cpuprofile | file.heapprofile> [top]');
const parsed = JSON.parse(readFileSync(file, 'utf8')) as Profile | { head: HeapNode };
/** What each call frame used by itself: µs of CPU, or bytes allocated. */
const self: { frame: CallFrame; amount: number }[] = [];
const heap = 'head' in parsed;
if (heap) {
  const walk = (n: HeapNode): void => {
    self.push({ frame: n.callFrame, amount: n.selfSize });
    for (const c of n.children ?? []) walk(c);
  };
  walk(parsed.head);
} else {
  const byId = new Map(parsed.nodes.map((n) => [n.id, n]));
  const at: number[] = [];
  parsed.timeDeltas.reduce((t, d, i) => (at[i] = t + d), 0);
  const from = lastArg ? at.at(-1)! - Number(lastArg) * 1e6 : -Infinity;
  parsed.samples.forEach((id, i) => {
    if (at[i]! >= from) self.push({ frame: byId.get(id)!.callFrame, amount: parsed.timeDeltas[i] ?? 0 });
  });
}
const total = self.reduce((a, b) => a + b.amount, 0);

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
for (const { frame, amount } of self) {
  const f = `${frame.functionName || '(anonymous)'} ${place(frame.url)}:${frame.lineNumber + 1}`;
  fns.set(f, (fns.get(f) ?? 0) + amount);
  pkgs.set(pkg(frame.url), (pkgs.get(pkg(frame.url)) ?? 0) + amount);
}
const pct = (us: number) => ((100 * us) / total).toFixed(1).padStart(5) + ' %';
const top = Number(topArg ?? 25);
console.log(heap ? `total sampled ${(total / 2 ** 30).toFixed(2)} GiB allocated` : `total sampled ${(total / 1e6).toFixed(2)} s`);
console.log('\nby package:');
for (const [k, us] of [...pkgs].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${pct(us)}  ${k}`);
console.log(heap ? '\nby function (bytes allocated):' : '\nby function (self time):');
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
