// Refreshes test/file-durations.json (read by test/duration-sequencer.js) from a Jest run's JSON output:
//   npm test -- --json --outputFile=/tmp/jest.json && node test/record-file-durations.js /tmp/jest.json
// Only the order matters, so a run under load serves as well as a quiet one.
const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const [, , input] = process.argv;
if (!input) {
  console.error('usage: node test/record-file-durations.js <jest --json output>');
  process.exit(2);
}
const run = JSON.parse(readFileSync(input, 'utf8'));
const seconds = Object.fromEntries(
  run.testResults.map((r) => [relative(ROOT, r.name), Math.round((r.endTime - r.startTime) / 100) / 10]).sort(([a], [b]) => (a < b ? -1 : 1)),
);
const file = join(__dirname, 'file-durations.json');
writeFileSync(file, `${JSON.stringify({ recorded: new Date(run.startTime).toISOString(), seconds }, null, 1)}\n`);
console.log(`${Object.keys(seconds).length} files recorded in ${relative(ROOT, file)}`);
