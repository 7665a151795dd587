import { clientBucketOf } from './client-address';

describe('clientBucketOf', () => {
  it('buckets IPv6 clients per /64: every address of one prefix shares a bucket, another prefix does not', () => {
    const a = clientBucketOf('2001:db8:1:2::1');
    expect(a).toBe('2001:db8:1:2::/64');
    expect(clientBucketOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(a);
    expect(clientBucketOf('2001:0db8:0001:0002:1234:5678:9abc:def0')).toBe(a);
    expect(clientBucketOf('2001:db8:1:3::1')).not.toBe(a);
    expect(clientBucketOf('::1')).toBe('0:0:0:0::/64');
  });

  it('keeps IPv4 addresses whole, IPv4-mapped IPv6 included', () => {
    expect(clientBucketOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientBucketOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientBucketOf('203.0.113.8')).not.toBe(clientBucketOf('203.0.113.7'));
  });

  it('gives an unparsable address a bucket of its own', () => {
    expect(clientBucketOf('not:an:address')).toBe('not:an:address');
  });
});
