import { HealthRegistry, healthHttpStatus } from './health';

describe('HealthRegistry', () => {
  it('is starting until every component is ready', async () => {
    const h = new HealthRegistry();
    let caughtUp = false;
    h.register('store', async () => ({ status: 'up', ready: true }));
    h.register('projections', async () => ({ status: 'up', ready: caughtUp }));
    expect((await h.report()).status).toBe('starting');
    caughtUp = true;
    expect((await h.report()).status).toBe('ready');
    expect((await h.report()).waiting_for).toEqual([]);
  });

  it('says what each component waits for', async () => {
    const h = new HealthRegistry();
    h.register('store', async () => ({ status: 'up', ready: true }));
    h.register('devnet', async () => ({ status: 'up', ready: false, waitingFor: 'the devnet at http://x/devnet/contracts' }));
    h.register('indexer', async () => ({ status: 'up', ready: false }));
    expect((await h.report()).waiting_for).toEqual(['devnet: the devnet at http://x/devnet/contracts', 'indexer: not ready']);
  });

  it('reports a throwing or hanging check as down', async () => {
    const h = new HealthRegistry();
    h.register('a', async () => {
      throw new Error('connection refused');
    });
    h.register('b', () => new Promise(() => undefined));
    const r = await h.report(50);
    expect(r.status).toBe('down');
    expect(r.components.a.details).toEqual({ error: 'connection refused' });
    expect(r.components.b.status).toBe('down');
    expect(r.waiting_for).toEqual(['a: down (connection refused)', 'b: down (no answer within 50 ms)']);
  });

  it('is degraded, not starting, when every component is ready but one says it is degraded', async () => {
    const h = new HealthRegistry();
    let brokerAway = true;
    h.register('store', async () => ({ status: 'up', ready: true }));
    h.register('kafka_relay', async () => ({ status: 'up', ready: true, degraded: brokerAway }));
    expect((await h.report()).status).toBe('degraded');
    brokerAway = false;
    expect((await h.report()).status).toBe('ready');
  });

  it('names a degraded component and what it does meanwhile, staying 200', async () => {
    const h = new HealthRegistry();
    h.register('store', async () => ({ status: 'up', ready: true }));
    h.register('redis', async () => ({ status: 'up', ready: true, degraded: true, waitingFor: 'redis unreachable (ECONNREFUSED)' }));
    const r = await h.report();
    expect(r.status).toBe('degraded');
    expect(healthHttpStatus(r)).toBe(200);
    expect(r.waiting_for).toEqual(['redis: degraded (redis unreachable (ECONNREFUSED))']);
  });

  it('is standby, not ready, when a component stands by for work another instance owns (200)', async () => {
    const h = new HealthRegistry();
    h.register('store', async () => ({ status: 'up', ready: true }));
    h.register('projections', async () => ({ status: 'up', ready: true, standby: true }));
    const r = await h.report();
    expect(r.status).toBe('standby');
    expect(healthHttpStatus(r)).toBe(200);
  });
});
