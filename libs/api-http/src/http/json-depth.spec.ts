import { exceedsJsonDepth } from './json-depth';

describe('exceedsJsonDepth', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('counts arrays and objects, not brackets inside strings', () => {
    expect(exceedsJsonDepth(nested(3), 3)).toBe(false);
    expect(exceedsJsonDepth(nested(4), 3)).toBe(true);
    expect(exceedsJsonDepth('{"a":{"b":[1,{"c":2}]}}', 4)).toBe(false);
    expect(exceedsJsonDepth('{"a":{"b":[1,{"c":2}]}}', 3)).toBe(true);
    expect(exceedsJsonDepth(`{"s":"${'['.repeat(100)}"}`, 1)).toBe(false);
  });

  it('is not fooled by escaped quotes inside strings', () => {
    expect(exceedsJsonDepth('{"s":"\\"[[[[[["}', 1)).toBe(false);
    expect(exceedsJsonDepth('{"s":"\\\\"}', 1)).toBe(false);
    expect(exceedsJsonDepth('{"s":"\\\\","t":[[1]]}', 2)).toBe(true);
  });

  it('stops early on a hostile body of 20,000 levels', () => {
    expect(exceedsJsonDepth(nested(20_000), 32)).toBe(true);
    expect(exceedsJsonDepth(nested(32), 32)).toBe(false);
  });
});
