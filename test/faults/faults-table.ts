import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../app-processes';

/** One fault's row of the table of docs/operations.md ("Faults, measured"). */
export interface Row {
  fault: string;
  recoverMs: number;
  requests: number;
  failed: Record<string, number>;
  operator: string;
}

/** The measured table, between its markers in docs/operations.md. */
export function writeTable(rows: readonly Row[]): void {
  const file = join(ROOT, 'docs/operations.md');
  const start = '<!-- faults-table:start -->';
  const end = '<!-- faults-table:end -->';
  const text = readFileSync(file, 'utf8');
  const table = [
    start,
    `Measured by \`npm run test:faults\` on ${new Date().toISOString().slice(0, 10)} (written by the suite, not by hand).`,
    '',
    '| fault | time to recover | requests (failed: status × count) | what an operator sees |',
    '|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.fault} | ${(r.recoverMs / 1000).toFixed(1)} s | ${r.requests} (${
          Object.entries(r.failed)
            .map(([s, n]) => `${s} × ${n}`)
            .join(', ') || 'none failed'
        }) | ${r.operator} |`,
    ),
    end,
  ].join('\n');
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  writeFileSync(file, i >= 0 && j > i ? text.slice(0, i) + table + text.slice(j + end.length) : `${text.trimEnd()}\n\n${table}\n`);
}
