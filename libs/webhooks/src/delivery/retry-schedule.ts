/**
 * The retry policy of docs/agent-api.md#webhooks: 5 retries, 1 min, 5 min, 30 min, 2 h and 12 h after the failed attempt before each
 * Injectable so tests can compress it to milliseconds.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000];

/**
 * After `failedAttempts` failures of one delivery (1 = the first attempt failed): the delay before the next
 * attempt, or null when the schedule is exhausted (the 5th retry failed) and the delivery has failed for good.
 */
export function retryDelayMs(failedAttempts: number, schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS): number | null {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1) throw new Error(`failedAttempts must be ≥ 1, got ${failedAttempts}`);
  return failedAttempts <= schedule.length ? schedule[failedAttempts - 1] : null;
}

/** Attempts one delivery may take in total: the first plus one per retry. */
export function maxAttempts(schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS): number {
  return schedule.length + 1;
}
