import { randomBytes } from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import { freePort, freshDatabaseUrl, startApp, until, type AppProcess } from './app-processes';

/**
 * Issue 20: secrets several processes share. API replicas and the notifier run as separate processes on one
 * PostgreSQL schema, started with `npm run start:<app>` like an operator does.
 */
describe('apps alone share their secrets or refuse to start', () => {
  const apps: AppProcess[] = [];
  const hex = () => randomBytes(32).toString('hex');
  const JWT_SECRET = `jwt-${hex()}`;
  const WEBHOOK_SECRET_KEY = hex();
  let DATABASE_URL: string;
  // The API alone needs a chain URL at start; nothing here reaches it.
  const STELLAR_RPC_URL = 'http://127.0.0.1:9/rpc';

  beforeAll(async () => {
    DATABASE_URL = await freshDatabaseUrl();
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
  });

  const start = (script: string, env: Record<string, string>) => {
    const app = startApp(script, env);
    apps.push(app);
    return app;
  };
  const listening = (port: number, app: AppProcess) =>
    until(`${app.name} on ${port}`, async () => (await fetch(`http://127.0.0.1:${port}/health`)).status > 0, 90_000, [app]);
  const expectRefusal = async (app: AppProcess, message: RegExp) => {
    expect(await app.exited).toBe(1);
    const lines = app.output().trim().split('\n');
    expect(lines.at(-1)).toMatch(message);
    expect(app.output()).not.toMatch(/\n\s+at /); // one line, no stack trace
  };

  it('the API refuses to start on PostgreSQL without JWT_SECRET and WEBHOOK_SECRET_KEY, in one line', async () => {
    const api = start('start:api', { DATABASE_URL, STELLAR_RPC_URL, PORT: String(await freePort()) });
    await expectRefusal(api, /^api: invalid configuration: JWT_SECRET is required .*; WEBHOOK_SECRET_KEY is required/);
    const notifier = start('start:notifier', { DATABASE_URL });
    await expectRefusal(notifier, /^notifier: invalid configuration: WEBHOOK_SECRET_KEY is required/);
  });

  it('two API processes with the same JWT_SECRET accept each other’s tokens; a third with another key refuses to start', async () => {
    const [portA, portB, portC] = [await freePort(), await freePort(), await freePort()];
    const env = { DATABASE_URL, STELLAR_RPC_URL, JWT_SECRET, WEBHOOK_SECRET_KEY };
    const a = start('start:api', { ...env, PORT: String(portA) });
    const b = start('start:api', { ...env, PORT: String(portB) });
    await Promise.all([listening(portA, a), listening(portB, b)]);

    const kp = Keypair.random();
    const post = (port: number, path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${port}/api/agent${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const nonce = ((await (await post(portA, '/auth/nonce', { wallet_address: kp.publicKey() })).json()) as { data: { message: string } }).data;
    const signature = Buffer.from(kp.sign(Buffer.from(nonce.message, 'utf8'))).toString('hex');
    const token = ((await (await post(portA, '/auth/token', { wallet: kp.publicKey(), signature })).json()) as { data: { token: string } }).data.token;
    const keysOn = (port: number) => fetch(`http://127.0.0.1:${port}/api/agent/auth/keys`, { headers: { authorization: `Bearer ${token}` } });
    expect((await keysOn(portA)).status).toBe(200);
    expect((await keysOn(portB)).status).toBe(200); // signed by A, verified by B

    const c = start('start:api', { ...env, JWT_SECRET: `other-${hex()}`, PORT: String(portC) });
    await expectRefusal(c, /^api: JWT_SECRET is not the key this database's data was protected with .*same JWT_SECRET$/);
  });

  it('a notifier with another WEBHOOK_SECRET_KEY than the API refuses to start; with the same key it runs', async () => {
    const wrong = start('start:notifier', { DATABASE_URL, WEBHOOK_SECRET_KEY: hex() });
    await expectRefusal(wrong, /^notifier: WEBHOOK_SECRET_KEY is not the key this database's data was protected with/);
    const port = await freePort();
    const right = start('start:notifier', { DATABASE_URL, WEBHOOK_SECRET_KEY, HEALTH_PORT: String(port) });
    // /health answers from the start, saying what it waits for; once running it reports the notifier itself.
    const health = await until(
      'the notifier running',
      async () => {
        const body = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { components: Record<string, { ready?: boolean }> };
        // The notifier's component appears a moment before its start is done (its lease is claimed in between).
        return body.components.notifier && body.components.startup?.ready ? body : undefined;
      },
      90_000,
      [right],
    );
    expect(health).toMatchObject({ components: { startup: { ready: true }, notifier: { status: 'up' } } });
  });
});
