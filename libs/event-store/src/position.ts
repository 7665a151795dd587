import { START, type GlobalPosition } from './event-store.port';

/**
 * GlobalPosition helpers. Positions order by commit first, then prepare — the same order ESDB uses for `$all`
 * and the order the SQL adapters read in (transaction id, then sequence).
 */
export function comparePositions(a: GlobalPosition, b: GlobalPosition): -1 | 0 | 1 {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function isAfter(a: GlobalPosition, b: GlobalPosition): boolean {
  return comparePositions(a, b) > 0;
}

export function maxPosition(a: GlobalPosition, b: GlobalPosition): GlobalPosition {
  return comparePositions(a, b) >= 0 ? a : b;
}

export function position(commit: bigint | string | number, prepare: bigint | string | number): GlobalPosition {
  return { commit: BigInt(commit), prepare: BigInt(prepare) };
}

/** "commit:prepare", e.g. "1043:88120"; START is "-1:-1". For checkpoint columns and logs. */
export function positionToString(p: GlobalPosition): string {
  return `${p.commit}:${p.prepare}`;
}

const POSITION_TEXT = /^(-1|0|[1-9][0-9]*):(-1|0|[1-9][0-9]*)$/;

export function positionFromString(text: string): GlobalPosition {
  const m = POSITION_TEXT.exec(text.trim());
  if (!m) throw new Error(`not a global position: ${JSON.stringify(text)} (expected "commit:prepare")`);
  const p = position(m[1]!, m[2]!);
  if (p.commit < 0n !== p.prepare < 0n) throw new Error(`not a global position: ${JSON.stringify(text)}`);
  return p.commit < 0n ? START : p;
}
