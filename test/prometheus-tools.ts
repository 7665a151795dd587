import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './app-processes';

/** The alerting and recording rules, their promtool unit tests and the scrape configuration (ops/prometheus). */
export const PROMETHEUS_DIR = join(ROOT, 'ops', 'prometheus');

/**
 * The path of `promtool` / `prometheus` (Debian's `prometheus` package), installed on first use the way the project
 * installs its servers (`scripts/services.sh prometheus`: apt-get, bounded by its own timeouts). Throws one line
 * naming the missing tool and the command that installs it.
 */
export function prometheusTool(name: 'promtool' | 'prometheus'): string {
  const find = () => {
    try {
      return execFileSync('bash', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  if (find()) return find();
  try {
    execFileSync('bash', [join(ROOT, 'scripts', 'services.sh'), 'prometheus'], { stdio: 'pipe', timeout: 900_000 });
  } catch (e) {
    throw new Error(`${name} is missing and could not be installed (${String(e).split('\n')[0]}): run \`npm run services -- prometheus\``);
  }
  return find();
}

interface AlertRule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
}

/** The alert names of ops/prometheus/rules.yml, in file order. */
export function alertNames(): string[] {
  const rules = parse(readFileSync(join(PROMETHEUS_DIR, 'rules.yml'), 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return rules.groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));
}
