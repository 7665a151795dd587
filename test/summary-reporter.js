// Ends every `npm test` run with one plain line — "tests: N passed, N failed, N skipped" — after Jest's own summary,
// so a reader of the CI log (human or machine) finds the count on the last line without parsing Jest's table. It is
// written when the process exits because Jest prints its own summary after every reporter's onRunComplete.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`;
    process.once('exit', () => process.stdout.write(line));
  }
}
module.exports = SummaryReporter;
