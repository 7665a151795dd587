import { documentRow } from '../mongo/document-rows';
import { documentColumns } from '../sql/document-columns';
import { ApiView, ExtendedView, computed, shownFields } from './api-view';
import { nstr } from './response-schemas';

const FIELDS = { id: 'text', total: 'amount', rate: 'decimal?', at: 'timestamp?', n: 'int8', on: 'bool' } as const;
const f = shownFields(FIELDS);

describe('a read model declared once', () => {
  it('selects each field as its row in SQL: exact numbers as text, int8 as a JS number', () => {
    expect(documentColumns('p', FIELDS)).toBe('p.id, p.total::text AS total, p.rate::text AS rate, p.at, p.n::float8 AS n, p.on');
  });

  it('maps a MongoDB document to the same row', () => {
    const row = documentRow(FIELDS, { id: 'a', total: 12n, rate: '1.50', at: '2026-01-02T03:04:05.000Z', n: 3, on: true });
    expect(row).toEqual({ id: 'a', total: '12', rate: '1.50', at: new Date('2026-01-02T03:04:05Z'), n: 3, on: true });
  });

  it('derives the API item, its property order and its OpenAPI schema from one view', () => {
    const list = new ApiView({
      id: f.plain('id'),
      rate: f.number('rate'),
      label: computed(nstr, (r: { id: string }) => `#${r.id}`),
      at: f.plain('at', { description: 'when' }),
    });
    const detail = new ExtendedView(list, { label: computed(nstr, () => 'replaced'), total: f.plain('total') });
    const row = { id: 'a', total: '12', rate: '1.50', at: new Date('2026-01-02T03:04:05Z'), n: 3, on: true };
    expect(JSON.stringify(detail.item(row, {}))).toBe('{"id":"a","rate":1.5,"label":"replaced","at":"2026-01-02T03:04:05Z","total":"12"}');
    expect(list.schema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        rate: { type: 'number', nullable: true },
        label: { type: 'string', nullable: true },
        at: { type: 'string', format: 'date-time', nullable: true, description: 'when' },
      },
      required: ['id', 'rate', 'label', 'at'],
    });
    expect(detail.schema).toEqual({
      allOf: [list.schema, { type: 'object', properties: { label: nstr, total: { type: 'string' } }, required: ['label', 'total'] }],
    });
  });

  it('leaves out a sometimes-present property whose value is undefined and sends the present ones after the rest', () => {
    const view = new ApiView(
      {
        id: f.plain('id'),
        label: computed(nstr, (r: { n: number }) => (r.n > 1 ? `n=${r.n}` : undefined)),
        on: f.plain('on'),
      },
      ['label'],
    );
    const row = { id: 'a', total: '12', rate: null, at: null, n: 2, on: true };
    expect(JSON.stringify(view.item(row, {}))).toBe('{"id":"a","on":true,"label":"n=2"}');
    expect(JSON.stringify(view.item({ ...row, n: 1 }, {}))).toBe('{"id":"a","on":true}');
    expect(Object.keys(view.schema.properties!)).toEqual(['id', 'label', 'on']);
    expect(view.schema.required).toEqual(['id', 'on']);
  });
});
