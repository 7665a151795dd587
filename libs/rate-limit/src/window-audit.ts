import { WINDOW_MS } from './sliding-window-rule';

/**
 * Audits a record of admission times (ms): the largest number inside any closed window [a, a + 60 s]. Used by the
 * tests and the load script to check "no 60-s window admits more than rpm + 10" from the outside.
 */
export function maxAdmissionsPerWindow(admitted: readonly number[]): number {
  const s = [...admitted].sort((x, y) => x - y);
  let best = 0;
  let j = 0;
  for (let i = 0; i < s.length; i++) {
    while (j < s.length && s[j]! <= s[i]! + WINDOW_MS) j++;
    best = Math.max(best, j - i);
  }
  return best;
}
