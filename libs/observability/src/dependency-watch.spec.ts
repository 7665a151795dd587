import { DependencyWatch } from './dependency-watch';
import { ServiceMetrics } from './metrics';

describe('DependencyWatch', () => {
  const setup = (optional = false) => {
    const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
    const log = {
      error: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'error', fields, msg }),
      warn: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', fields, msg }),
    };
    const metrics = new ServiceMetrics({ app: 'test', processMetrics: false });
    let now = 1000;
    const watch = new DependencyWatch(log as never, metrics, () => now);
    let up = true;
    const check = watch.watch('postgresql', {
      probe: async () => {
        if (!up) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      },
      optional,
      meanwhile: optional ? 'rate limits are kept per API instance' : undefined,
    });
    const series = async () => (await metrics.render()).body.split('\n').filter((l) => l.startsWith('dependency_'));
    return { lines, check, series, watch, setUp: (v: boolean) => (up = v), advance: (ms: number) => (now += ms) };
  };

  it('names the server that is away in /health, logs the outage at error and the recovery at warn, and counts it', async () => {
    const t = setup();
    expect(await t.check()).toEqual({ status: 'up', ready: true });
    t.setUp(false);
    const down = await t.check();
    expect(down).toMatchObject({ status: 'down', ready: false, waitingFor: 'postgresql unreachable (connect ECONNREFUSED 127.0.0.1:5432)' });
    await t.check(); // still down: logged and counted once
    expect(t.lines).toEqual([
      { level: 'error', fields: { dependency: 'postgresql', err: 'connect ECONNREFUSED 127.0.0.1:5432' }, msg: 'postgresql is unavailable' },
    ]);
    expect(await t.series()).toEqual(['dependency_up{dependency="postgresql",app="test"} 0', 'dependency_outages_total{dependency="postgresql",app="test"} 1']);

    t.advance(3000);
    t.setUp(true);
    expect(await t.check()).toEqual({ status: 'up', ready: true });
    expect(t.lines[1]).toEqual({ level: 'warn', fields: { dependency: 'postgresql', outage_ms: 3000 }, msg: 'postgresql is available again after 3000 ms' });
    expect(await t.series()).toEqual(['dependency_up{dependency="postgresql",app="test"} 1', 'dependency_outages_total{dependency="postgresql",app="test"} 1']);
    t.watch.close();
  });

  it('an optional server away leaves the app up and ready, degraded, saying what it does meanwhile', async () => {
    const t = setup(true);
    t.setUp(false);
    expect(await t.check()).toMatchObject({
      status: 'up',
      ready: true,
      degraded: true,
      waitingFor: 'postgresql unreachable (connect ECONNREFUSED 127.0.0.1:5432); rate limits are kept per API instance',
    });
    t.watch.close();
  });
});
