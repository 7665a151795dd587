import { WrongExpectedVersionError } from '../errors';
import { isConcurrentDuplicateId, toEventStoreError } from './sql-errors';

describe('toEventStoreError', () => {
  it('maps es_append conflicts with their detail', () => {
    const e = toEventStoreError({ code: 'ES409', detail: '{"streamId":"pool-1","expected":"no_stream","actual":3}' });
    expect(e).toBeInstanceOf(WrongExpectedVersionError);
    expect(e).toMatchObject({ streamId: 'pool-1', expected: 'no_stream', actual: 3 });
  });

  it('maps the unique (stream_id, revision) violation of racing writers', () => {
    const e = toEventStoreError({
      code: '23505',
      constraint: 'es_events_stream_revision_key',
      detail: 'Key (stream_id, revision)=(pool-1, 3) already exists.',
    });
    expect(e).toBeInstanceOf(WrongExpectedVersionError);
    expect(e).toMatchObject({ streamId: 'pool-1', actual: 2 });
  });

  it('leaves other errors alone and spots duplicate event ids', () => {
    const other = { code: '23505', constraint: 'something_else' };
    expect(toEventStoreError(other)).toBe(other);
    expect(isConcurrentDuplicateId({ code: '23505', constraint: 'es_events_event_id_key' })).toBe(true);
    expect(isConcurrentDuplicateId(other)).toBe(false);
  });
});
