// Ends every `npm test` run with one plain line — "tests: N passed, N failed, N skipped" — after Jest's own summary,
// so a reader of the CI log (human or machine) finds the count on the last line without parsing Jest's table. It is
// written when the process exits because Jest prints its own summary after every reporter's onRunComplete.
//
// Before Jest's summary it prints where the run's time went (docs/operations.md, "The suite's time"): the wall time,
// the files' time summed, and how long the workers sat between files — Jest's own overhead per file and the tail
// where one worker had nothing left — so a CI log shows whether a slower run came from the tests or around them.
class SummaryReporter {
  constructor(globalConfig) {
    this.workers = globalConfig.maxWorkers;
    this.files = [];
  }

  onTestResult(_test, result) {
    // A file that failed to load never started: its perfStats are zeros, which made the wall time negative.
    if (!result.perfStats.start) return;
    this.files.push({ start: result.perfStats.start, end: result.perfStats.end });
  }

  onRunComplete(_contexts, results) {
    if (this.files.length > 0) console.log(timeLine(this.files, results.startTime, this.workers));
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`;
    process.once('exit', () => process.stdout.write(line));
  }
}

/** Files laid on workers in the order they started (each on the worker free first): the gaps are what is not tests. */
function timeLine(files, runStart, workers) {
  const s = (ms) => `${Math.round(ms / 1000)} s`;
  const end = Math.max(...files.map((f) => f.end));
  const summed = files.reduce((n, f) => n + (f.end - f.start), 0);
  const lanes = Array.from({ length: Math.max(1, Math.min(workers, files.length)) }, () => runStart);
  let between = 0;
  for (const f of [...files].sort((a, b) => a.start - b.start)) {
    const i = lanes.indexOf(Math.min(...lanes));
    between += Math.max(0, f.start - lanes[i]);
    lanes[i] = Math.max(lanes[i], f.end);
  }
  const tail = lanes.reduce((n, last) => n + (end - last), 0);
  return `time: ${s(end - runStart)} wall, ${files.length} files ${s(summed)} summed on ${lanes.length} workers; between files ${s(between)}, idle at the end ${s(tail)}`;
}

module.exports = SummaryReporter;
