import { copyText, copyValue } from './copy-text';

describe('COPY text format', () => {
  it('writes null as \\N, booleans as t/f, numbers and bigints as decimals, and escapes what the format reserves', () => {
    expect([null, true, false, 42, -7n, 'plain'].map(copyValue)).toEqual(['\\N', 't', 'f', '42', '-7', 'plain']);
    expect(copyValue('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyValue('\\N')).toBe('\\\\N'); // the text "\N", not a null
  });

  it('puts a row on a line, its values tab-separated in column order', () => {
    expect(
      copyText([
        ['a', 1, null],
        ['b\tc', 2, true],
      ]),
    ).toBe('a\t1\t\\N\nb\\tc\t2\tt\n');
    expect(copyText([])).toBe('');
  });
});
