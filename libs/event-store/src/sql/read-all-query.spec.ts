import { START } from '../event-store.port';
import { position } from '../position';
import { buildReadAllQuery } from './read-all-query';

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
    expect(q.text).toContain('e.type = ANY($4::text[])');
    expect(q.params[3]).toEqual(['PoolOpened', 'Deposited']);
  });

  it('rejects a non-positive page size', () => {
    expect(() => buildReadAllQuery(START, 0)).toThrow('maxCount');
  });
});
