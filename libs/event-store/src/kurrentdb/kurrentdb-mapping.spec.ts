import { ANY, NO_STREAM, STREAM_EXISTS } from '@kurrent/kurrentdb-client';
import { eventFilter, matchesExpected, toStreamState } from './kurrentdb-event-store';

describe('KurrentDB adapter mapping', () => {
  it('maps expected versions to expected stream states', () => {
    expect(toStreamState('any')).toBe(ANY);
    expect(toStreamState('no_stream')).toBe(NO_STREAM);
    expect(toStreamState('stream_exists')).toBe(STREAM_EXISTS);
    expect(toStreamState('41')).toBe(41n);
  });

  it('checks an empty append against the current revision as the server would', () => {
    expect(matchesExpected('any', -1)).toBe(true);
    expect(matchesExpected('no_stream', -1)).toBe(true);
    expect(matchesExpected('no_stream', 0)).toBe(false);
    expect(matchesExpected('stream_exists', -1)).toBe(false);
    expect(matchesExpected('stream_exists', 3)).toBe(true);
    expect(matchesExpected('3', 3)).toBe(true);
    expect(matchesExpected('3', 4)).toBe(false);
  });

  it('filters $all on the server: exact types, escaped, or every non-system event', () => {
    expect(eventFilter(['ListingSold', 'a.b+c'])).toMatchObject({ filterOn: 'eventType', regex: '^(?:ListingSold|a\\.b\\+c)$' });
    const all = eventFilter(undefined) as { regex: string };
    expect(new RegExp(all.regex).test('ListingSold')).toBe(true);
    expect(new RegExp(all.regex).test('$metadata')).toBe(false);
  });
});
