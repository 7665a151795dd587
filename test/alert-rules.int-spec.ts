import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PROMETHEUS_DIR, alertNames, prometheusTool } from './prometheus-tools';

/**
 * ops/prometheus with Prometheus's own tools (Debian's package): the rules parse (`promtool check rules`), their unit
 * tests pass (`promtool test rules`), and those tests hold, for every alert, a case where it fires and one where
 * it does not; every alert has its runbook section in docs/operations.md.
 */
const promtool = (...args: string[]) => execFileSync(prometheusTool('promtool'), args, { cwd: PROMETHEUS_DIR, encoding: 'utf8', timeout: 60_000 });

interface AlertCase {
  readonly alertname: string;
  readonly exp_alerts?: unknown[];
}

it('promtool check rules accepts ops/prometheus/rules.yml', () => {
  expect(promtool('check', 'rules', 'rules.yml')).toMatch(/SUCCESS: \d+ rules found/);
});

it('promtool test rules passes, with a firing and a not-firing case for every alert', () => {
  expect(promtool('test', 'rules', 'rules.test.yml')).toContain('SUCCESS');
  const tests = parse(readFileSync(join(PROMETHEUS_DIR, 'rules.test.yml'), 'utf8')) as { tests: { alert_rule_test?: AlertCase[] }[] };
  const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
  const names = alertNames();
  expect(names.length).toBeGreaterThan(10);
  const uncovered = names.filter(
    (name) =>
      !cases.some((c) => c.alertname === name && (c.exp_alerts ?? []).length > 0) ||
      !cases.some((c) => c.alertname === name && (c.exp_alerts ?? []).length === 0),
  );
  expect(uncovered).toEqual([]);
});

it('gives every alert a runbook section in docs/operations.md, linked from its annotations', () => {
  const doc = readFileSync(join(PROMETHEUS_DIR, '..', '..', 'docs', 'operations.md'), 'utf8');
  const rules = readFileSync(join(PROMETHEUS_DIR, 'rules.yml'), 'utf8');
  const missing = alertNames().filter((name) => !new RegExp(`^#### ${name}$`, 'm').test(doc) || !rules.includes(`docs/operations.md#${name.toLowerCase()}`));
  expect(missing).toEqual([]);
});
