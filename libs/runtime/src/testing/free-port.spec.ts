import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ephemeralPortRange, freePort } from './free-port';

describe('freePort', () => {
  it('gives a port below the ephemeral range that can be listened on at once', async () => {
    const [low] = ephemeralPortRange();
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
      const server = createServer();
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '0.0.0.0', resolve));
      await new Promise((r) => server.close(r));
    }
  });

  it('reads the kernel range, or falls back to Linux default on what it cannot parse', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ports-'));
    try {
      writeFileSync(join(dir, 'range'), '40000\t50000\n');
      expect(ephemeralPortRange(join(dir, 'range'))).toEqual([40000, 50000]);
      writeFileSync(join(dir, 'bad'), 'nonsense');
      expect(ephemeralPortRange(join(dir, 'bad'))).toEqual([32768, 60999]);
      expect(ephemeralPortRange(join(dir, 'missing'))).toEqual([32768, 60999]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
