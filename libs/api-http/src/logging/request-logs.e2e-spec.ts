import { Writable } from 'node:stream';
import { Body, Controller, Logger, Module, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger } from '@dob/observability';
import { HealthRegistry } from '@dob/runtime';
import { createApiApp } from '../bootstrap';

/** A handler that logs through Nest's Logger after an await, as services do. */
@Controller('probe')
class ProbeController {
  private readonly logger = new Logger('probe');

  @Post()
  async post(@Body() body: unknown) {
    await new Promise((r) => setTimeout(r, 5));
    this.logger.log(`handled ${JSON.stringify(body)}`);
    return { success: true, data: null };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('request logs', () => {
  const lines: Record<string, unknown>[] = [];
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    const destination = new Writable({
      write: (chunk, _e, done) => {
        for (const l of String(chunk).trim().split('\n')) lines.push(JSON.parse(l));
        done();
      },
    });
    app = await createApiApp({ health: new HealthRegistry() }, { log: createLogger({ app: 'test', destination }), modules: [ProbeModule] });
    // A real socket: with a body, parsing resumes in the socket's async context (inject() would hide that).
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => app?.close());

  it("puts the request's id on every line logged while serving it, a request with a JSON body included", async () => {
    const r = await fetch(`${base}/api/agent/probe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'probe-1' },
      body: '{"n":1}',
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-request-id')).toBe('probe-1');
    const ofRequest = lines.filter((l) => l.msg === 'handled {"n":1}' || (l.msg === 'request completed' && l.url === '/api/agent/probe'));
    expect(ofRequest).toEqual([
      expect.objectContaining({ level: 'info', context: 'probe', reqId: 'probe-1' }),
      expect.objectContaining({ level: 'info', reqId: 'probe-1', route: '/api/agent/probe', status: 201, method: 'POST' }),
    ]);
  });

  it('answers liveness without touching storage, logged with its request id', async () => {
    const r = await fetch(`${base}/health/live`, { headers: { 'x-request-id': 'live-1' } });
    expect(await r.json()).toEqual({ status: 'alive', uptime_seconds: expect.any(Number) });
    expect(lines.find((l) => l.reqId === 'live-1')).toMatchObject({ msg: 'request completed', status: 200 });
  });
});
