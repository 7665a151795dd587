/**
 * Series names in PromQL and in a /metrics text exposition, for checking that a dashboard (or rule) queries only
 * what the system exports. PromQL grammar: https://prometheus.io/docs/prometheus/latest/querying/basics/ — a
 * selector is a metric name, optionally followed by {label matchers}; functions are names followed by "(".
 */
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan']);

/** The metric names a PromQL expression selects (functions, keywords, labels, durations and strings left out). */
export function seriesOfQuery(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // range and subquery durations
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '') // label lists
    .replace(/\$\w+/g, ''); // dashboard variables
  const names = [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)]
    .filter((m) => !/[\w.]/.test(bare[m.index - 1] ?? ' ')) // not the tail of a number such as 1e3
    .filter(
      (m) =>
        !bare
          .slice(m.index + m[0].length)
          .trimStart()
          .startsWith('('),
    ) // a function, not a series
    .map((m) => m[0])
    .filter((n) => !KEYWORDS.has(n.toLowerCase()));
  return [...new Set(names)];
}

/**
 * Every series name a /metrics body declares (its `# TYPE` lines, so a labelled family not yet observed counts),
 * with a histogram's _bucket/_sum/_count and a summary's _sum/_count.
 */
export function exportedSeries(metricsText: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of metricsText.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}
