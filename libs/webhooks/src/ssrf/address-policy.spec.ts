import { classifyAddress } from './address-policy';

describe('classifyAddress (SSRF address policy)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['64:ff9b::808:808', 'NAT64'],
    ['2002:7f00:1::1', '6to4'],
    ['[::1]', 'loopback'],
  ])('refuses %s (%s)', (address, kind) => {
    const v = classifyAddress(address);
    expect(v.allowed).toBe(false);
    if (!v.allowed) expect(v.reason).toContain(kind);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2001:4860:4860::8888'])('allows public %s', (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: true });
  });

  it('refuses what is not an address', () => {
    expect(classifyAddress('localhost').allowed).toBe(false);
  });

  it('lets an explicit allow-list CIDR through, and only that', () => {
    const allow = { cidrs: ['127.0.0.1/32', '::1'] };
    expect(classifyAddress('127.0.0.1', allow).allowed).toBe(true);
    expect(classifyAddress('::1', allow).allowed).toBe(true);
    expect(classifyAddress('127.0.0.2', allow).allowed).toBe(false);
    expect(classifyAddress('10.0.0.1', allow).allowed).toBe(false);
  });
});
