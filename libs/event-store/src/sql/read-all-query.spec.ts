import { START } from '../event-store.port';
import { position } from '../position';
import { MIN_SCAN_WINDOW, buildReadAllQuery, scanWindow } from './read-all-query';

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

  it('adds a type filter as an array parameter', () => {
    const q = buildReadAllQuery(START, 10, ['PoolOpened', 'Deposited']);
    expect(q.text).toContain('v.type = ANY($4::text[])');
    expect(q.params[3]).toEqual(['PoolOpened', 'Deposited']);
  });

  it('bounds a filtered page by a scan window of $all rows, walked in index order before the horizon applies', () => {
    const q = buildReadAllQuery(START, 5000, ['PoolOpened']);
    expect(q.params[4]).toBe(scanWindow(5000));
    expect(scanWindow(5000)).toBe(4 * 5001);
    expect(scanWindow(10)).toBe(MIN_SCAN_WINDOW);
    expect(q.text).toContain('LIMIT $5');
    expect(q.text).toMatch(/scan AS MATERIALIZED \(\s*SELECT e.transaction_id, e.position, e.type FROM es_events e\s*WHERE \(e.transaction_id, e.position\) >/);
  });

  it("joins payloads only to the page's own rows, picked by key first", () => {
    const q = buildReadAllQuery(START, 5000, ['PoolOpened']);
    expect(q.text).toMatch(
      /matched AS \(\s*SELECT v\.position FROM visible v\s*WHERE v\.type = ANY\(\$4::text\[\]\)\s*ORDER BY v\.transaction_id, v\.position\s*LIMIT \$3\s*\)/,
    );
    expect(q.text).toMatch(/page AS \(\s*SELECT [^)]*FROM matched m JOIN es_events e ON e\.position = m\.position\s*\)/);
  });

  it('rejects a non-positive page size', () => {
    expect(() => buildReadAllQuery(START, 0)).toThrow('maxCount');
  });
});
