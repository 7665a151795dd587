import { protocol } from '@electric-sql/pglite';
import { bindExecuteSync, type BindValue } from './bind-message';

/** What PGlite's own serializer makes of the same statement and values (the reference). */
function pglites(statement: string, values: readonly BindValue[]): Uint8Array {
  const parts = [protocol.serialize.bind({ statement, values: [...values] as never[] }), protocol.serialize.execute({}), protocol.serialize.sync()];
  return Buffer.concat(parts.map((p) => Buffer.from(p)));
}

describe('bindExecuteSync', () => {
  const cases: [string, string, BindValue[]][] = [
    ['no parameters', 'dob_s1', []],
    ['ASCII text and a null', 'dob_s2', ['{"events":[1,2,3]}', null, '']],
    ['two- and three-byte characters', 'dob_s3', ['naïve café', '€ 1,000', 'ステラ']],
    ['characters outside the BMP (surrogate pairs)', 'dob_s4', ['pool 🚀 launch', '𝄞'.repeat(3)]],
    ['bytes, sent in binary format', 'dob_s5', [new Uint8Array([0, 1, 2, 255]), 'text after', new Uint8Array(0)]],
    ['a view into a larger buffer', 'dob_s6', [Buffer.from('xxpayloadxx').subarray(2, 9)]],
    ['a long parameter', 'dob_s7', [JSON.stringify({ events: Array.from({ length: 2_000 }, (_, i) => ({ i, id: `é-${i}`, data: 'x'.repeat(50) })) })]],
  ];

  it.each(cases)('%s: byte for byte what PGlite serializes', (_what, statement, values) => {
    expect(Buffer.from(bindExecuteSync(statement, values)).equals(Buffer.from(pglites(statement, values)))).toBe(true);
  });

  it('counts a value by its UTF-8 bytes, not its characters', () => {
    const message = Buffer.from(bindExecuteSync('s', ['é🚀']));
    // 'B', length, "" NUL, "s" NUL, one format code (text), one value: its length is 2 + 4 bytes
    const valueLengthAt = 1 + 4 + 1 + 2 + 2 + 2 + 2;
    expect(message.readInt32BE(valueLengthAt)).toBe(6);
    expect(message.subarray(valueLengthAt + 4, valueLengthAt + 10).toString('utf8')).toBe('é🚀');
  });
});
