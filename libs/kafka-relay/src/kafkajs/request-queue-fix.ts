/**
 * kafkajs 2.2.4's RequestQueue.scheduleCheckPendingRequests computes `throttledUntil - Date.now()`, and
 * `throttledUntil` starts at -1: with nothing throttled the delay is about minus the epoch in ms. Node has always
 * clamped such a delay to 1 ms — so every connection re-arms a 1 ms timer after each response, for ever (we
 * measured ~900 timers/s per idle producer) — and Node 24 also prints TimeoutNegativeWarning for each one
 * (tulios/kafkajs#1751; fixes proposed in #1755/#1756 were never released: kafkajs has had no release since 2023).
 *
 * The replacement keeps the method's purpose — wake the queue when client-side throttling ends, or soon when
 * requests are waiting — and schedules nothing when nothing waits: a newly queued request calls this method
 * itself (RequestQueue.push), and a fulfilled one calls checkPendingRequests. Applied once, on first import of
 * the adapter, only to the exact code it replaces (anything else means kafkajs changed: we leave it alone).
 */
// kafkajs ships no types for its internals; this is the part of RequestQueue the fix touches.
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10; // kafkajs's own constant for "requests are waiting"
const BUGGY_LINE = 'let scheduleAt = this.throttledUntil - Date.now()';

let outcome: 'patched' | 'not-needed' | undefined;

function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilThrottleEnds = this.throttledUntil - Date.now();
  const delay = untilThrottleEnds > 0 ? untilThrottleEnds : CHECK_PENDING_REQUESTS_INTERVAL_MS;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delay);
}

export function fixKafkajsRequestQueue(): 'patched' | 'not-needed' {
  if (outcome) return outcome;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueueInternals };
  const original = RequestQueue.prototype.scheduleCheckPendingRequests;
  outcome = original.toString().includes(BUGGY_LINE) ? 'patched' : 'not-needed';
  if (outcome === 'patched') RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  return outcome;
}
