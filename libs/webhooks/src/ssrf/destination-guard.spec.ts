import { createServer } from 'node:https';
import type { LookupAddress } from 'node:dns';
import { createHttpsSender } from '../delivery/https-sender';
import { DestinationGuard, UnsafeDestinationError, type ResolveAll } from './destination-guard';

const dns =
  (table: Record<string, string[]>): ResolveAll =>
  async (host) => {
    const ips = table[host];
    if (!ips) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return ips.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('DestinationGuard', () => {
  const guard = new DestinationGuard(
    {},
    dns({
      'hooks.example.com': ['93.184.216.34'],
      'evil.example.com': ['127.0.0.1'],
      'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
      'mapped.example.com': ['::ffff:127.0.0.1'],
    }),
  );

  it('accepts an https URL whose host resolves only to public addresses', async () => {
    await expect(guard.checkUrl('https://hooks.example.com/dob')).resolves.toBeInstanceOf(URL);
  });

  it.each([
    ['http://hooks.example.com/x', /HTTPS/],
    ['ftp://hooks.example.com/x', /HTTPS/],
    ['not a url', /valid absolute URL/],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['https://127.0.0.1/x', /loopback/],
    ['https://[::1]/x', /loopback/],
    ['https://[::ffff:127.0.0.1]/x', /IPv4-mapped/],
    ['https://[64:ff9b::a00:1]/x', /NAT64/],
    ['https://10.0.0.1/x', /private/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://100.64.1.1/', /carrier-grade/],
    ['https://evil.example.com/x', /evil.example.com resolves to 127.0.0.1 is a loopback/],
    ['https://mixed.example.com/x', /private/],
    ['https://mapped.example.com/x', /IPv4-mapped/],
    ['https://nowhere.example.com/x', /does not resolve/],
  ])('refuses %s at registration', async (url, message) => {
    await expect(guard.checkUrl(url)).rejects.toThrow(UnsafeDestinationError);
    await expect(guard.checkUrl(url)).rejects.toThrow(message);
  });

  it('refuses at connect time a host that resolved to a public address at registration and to loopback now (rebinding)', async () => {
    let answers = ['93.184.216.34'];
    const rebinding = new DestinationGuard({}, async () => answers.map((address) => ({ address, family: 4 })));
    await expect(rebinding.checkUrl('https://rebind.example.com/')).resolves.toBeDefined();
    answers = ['127.0.0.1'];
    const err = await new Promise<Error | null>((resolve) => rebinding.lookup('rebind.example.com', {}, (e) => resolve(e)));
    expect(err?.message).toMatch(/loopback/);
  });

  it('never opens a connection to a loopback receiver, whether named through DNS or as an IP literal', async () => {
    let hits = 0;
    const server = createServer({}, (_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const blocked = createHttpsSender({ guard: new DestinationGuard({}, dns({ 'evil.example.com': ['127.0.0.1'] })), timeoutMs: 2000 });
      const r = await blocked.send(`https://evil.example.com:${port}/`, {}, '{}');
      expect(r.ok).toBe(false);
      expect(r.responseCode).toBeNull();
      expect(r.error).toMatch(/loopback/);
      const literal = await blocked.send(`https://127.0.0.1:${port}/`, {}, '{}');
      expect(literal.error).toMatch(/loopback/);
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });

  it('checks a connect host every time until it has passed: a refused literal stays refused, however often it is tried', () => {
    const connect = new DestinationGuard({ cidrs: ['127.0.0.2/32'] });
    for (let i = 0; i < 3; i++) {
      expect(() => connect.assertConnectHost('127.0.0.1')).toThrow(/loopback/);
      expect(() => connect.assertConnectHost('[::1]')).toThrow(/loopback/);
      expect(() => connect.assertConnectHost('10.0.0.1')).toThrow(/private/);
      expect(() => connect.assertConnectHost('127.0.0.2')).not.toThrow();
      expect(() => connect.assertConnectHost('hooks.example.com')).not.toThrow(); // names are checked by `lookup`
    }
    // More passed hosts than it remembers: still right for each.
    for (let i = 0; i < 1100; i++) expect(() => connect.assertConnectHost(`h${i}.example.com`)).not.toThrow();
    expect(() => connect.assertConnectHost('127.0.0.1')).toThrow(/loopback/);
  });

  it('honours an explicit allow-list of hosts and CIDRs', async () => {
    const allowed = new DestinationGuard({ hosts: ['receiver.test'], cidrs: ['127.0.0.1/32'] }, dns({ 'evil.example.com': ['127.0.0.1'] }));
    await expect(allowed.checkUrl('https://receiver.test/')).resolves.toBeDefined();
    await expect(allowed.checkUrl('https://127.0.0.1:8443/')).resolves.toBeDefined();
    await expect(allowed.checkUrl('https://evil.example.com/')).resolves.toBeDefined();
    await expect(allowed.checkUrl('https://10.0.0.1/')).rejects.toThrow(/private/);
  });
});
