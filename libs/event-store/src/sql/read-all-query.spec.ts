import { START } from '../event-store.port';
import { position } from '../position';
import { EVENT_COLUMNS, buildReadAllQuery } from './read-all-query';

describe('buildReadAllQuery', () => {
  it('reads only finished transactions, in (transaction, sequence) order, strictly after the position', () => {
    const q = buildReadAllQuery(position(812, 40), 100);
    expect(q.text).toContain('e.transaction_id < h.xmin');
    expect(q.text).toContain('pg_snapshot_xmin(pg_current_snapshot())');
    expect(q.text).toContain('(e.transaction_id, e.position) > ($1::text::xid8, $2::bigint)');
    expect(q.text).toContain('ORDER BY e.transaction_id, e.position');
    expect(q.params).toEqual(['812', '40', 101]);
    expect(q.text).not.toContain('$4');
  });

  it('maps START below every real transaction id', () => {
    expect(buildReadAllQuery(START, 10).params).toEqual(['0', '-1', 11]);
  });

  it('reads a type filter as one ordered range per distinct type, merged and cut at the page size', () => {
    const q = buildReadAllQuery(START, 10, ['PoolOpened', 'Deposited', 'PoolOpened']);
    expect(q.params).toEqual(['0', '-1', 11, 'PoolOpened', 'Deposited']);
    for (const n of [4, 5]) {
      expect(q.text).toContain(
        `WHERE e.type = $${n}::text AND (e.transaction_id, e.position) > ($1::text::xid8, $2::bigint)\n    ORDER BY e.transaction_id, e.position LIMIT $3)`,
      );
    }
    expect(q.text.match(/UNION ALL/g)).toHaveLength(1);
    expect(q.text).toMatch(
      /matched AS MATERIALIZED \(\s*SELECT u\.transaction_id, u\.position FROM \([\s\S]*\) u\s*ORDER BY u\.transaction_id, u\.position\s*LIMIT \$3\s*\)/,
    );
    expect(q.text).not.toContain('$6');
  });

  it("joins payloads only to the page's own rows, and holds them against the horizon after the merge", () => {
    const q = buildReadAllQuery(START, 5000, ['PoolOpened']);
    expect(q.text).toMatch(
      new RegExp(
        `page AS \\(\\s*SELECT ${EVENT_COLUMNS.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} FROM matched m JOIN es_events e ON e\\.position = m\\.position, horizon h\\s*WHERE m\\.transaction_id < h\\.xmin\\s*\\)`,
      ),
    );
  });

  it('an empty type filter matches nothing and still returns the head', () => {
    const q = buildReadAllQuery(START, 10, []);
    expect(q.params).toEqual(['0', '-1', 11]);
    expect(q.text).toContain('WHERE false');
    expect(q.text).toContain('FROM head LEFT JOIN page ON true');
  });

  it('rejects a non-positive page size', () => {
    expect(() => buildReadAllQuery(START, 0)).toThrow('maxCount');
  });
});
