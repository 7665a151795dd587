/**
 * Summarises a .cpuprofile written by `CPU_PROFILE=pools node … bench/read-api.profile.ts`: the functions with the
 * most self time, and the share of the time spent under (inclusive) a few parts of the read path, so docs/benchmarks-journal.md
 * can name what a change removed without committing multi-megabyte profiles.
 *   node -r @swc-node/register bench/read-api.profile-summary.ts /tmp/read-api-pools.cpuprofile [top]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const where = (n: Node) => {
  const file = n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/(apps|libs)\//, '$1/');
  return `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber + 1}`;
};

function summarise(path: string, top: number): void {
  const p = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self].filter(([id]) => ['(idle)', '(program)', '(garbage collector)'].includes(byId.get(id)!.callFrame.functionName));
  const busy = total - idle.reduce((a, [, t]) => a + t, 0);
  const selfByFn = new Map<string, number>();
  for (const [id, t] of self) selfByFn.set(where(byId.get(id)!), (selfByFn.get(where(byId.get(id)!)) ?? 0) + t);
  console.log(`${path}: ${(total / 1000).toFixed(0)} ms sampled, ${((busy / total) * 100).toFixed(0)} % not idle/program/gc`);
  console.log(`top ${top} self time (% of sampled):`);
  for (const [fn, t] of [...selfByFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${((t / total) * 100).toFixed(1).padStart(5)} %  ${fn}`);
  // Inclusive time under frames whose file matches: each sample counts once per part however deep the recursion.
  const parts: Record<string, RegExp> = {
    'class-validator': /class-validator\//,
    'class-transformer': /class-transformer\//,
    'JSON.stringify (fastify serialiser)': /^stringify |fast-json-stringify|serializ/,
    '@nestjs/core router/pipes': /@nestjs\/core\//,
    '@nestjs/cqrs buses': /@nestjs\/cqrs\//,
    'request gate (key + limiter)': /apps\/api\/src\/auth\/|libs\/auth\/|libs\/rate-limit\//,
    'query services + read cache': /libs\/read-models\//,
    fastify: /(^| )fastify\/|find-my-way|avvio|light-my-request/,
    'pino / request observer': /pino|request-observer/,
  };
  const inclusive = Object.fromEntries(Object.keys(parts).map((k) => [k, 0]));
  p.samples.forEach((id, i) => {
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const frame = where(byId.get(n)!);
      for (const [k, re] of Object.entries(parts)) if (!seen.has(k) && re.test(frame.replace(/^[^ ]+ /, '') + ' ' + frame)) seen.add(k);
    }
    for (const k of seen) inclusive[k]! += p.timeDeltas[i] ?? 0;
  });
  console.log('inclusive time under (% of sampled):');
  for (const [k, t] of Object.entries(inclusive)) console.log(`  ${((t / total) * 100).toFixed(1).padStart(5)} %  ${k}`);
}

summarise(process.argv[2] ?? '/tmp/read-api-pools.cpuprofile', Number(process.argv[3] ?? 25));
