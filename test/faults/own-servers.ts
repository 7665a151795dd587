import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../app-processes';

/**
 * Servers of the fault suite's own, on free loopback ports in a temporary folder — never the shared ones other
 * tests use (5432, 6379, …), since the suite stops and restarts them. PostgreSQL runs as the `postgres` user when
 * this process is root (initdb refuses root), Redis as whoever runs the suite.
 */
export interface OwnServer {
  readonly url: string;
  /** Asynchronous, so the suite's load keeps running while a server stops and starts. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stop and start again, as an upgrade or a crash-restart does. */
  restart(): Promise<void>;
  /** Stops it for good and removes its folder. */
  destroy(): void;
}

const asPostgres = (args: string[]) =>
  (process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0]!, args.slice(1)]) as [string, string[]];
async function run([command, args]: [string, string[]]): Promise<void> {
  await promisify(execFile)(command, args, { timeout: 60_000 });
}

export async function startOwnPostgres(dir = mkdtempSync(join(tmpdir(), 'dob-faults-pg-'))): Promise<OwnServer> {
  const version = readdirSync('/usr/lib/postgresql')
    .sort((a, b) => Number(a) - Number(b))
    .pop();
  if (!version) throw new Error('no PostgreSQL under /usr/lib/postgresql (npm run services installs it)');
  const bin = (name: string) => `/usr/lib/postgresql/${version}/bin/${name}`;
  const port = await freePort();
  const data = join(dir, 'data');
  chmodSync(dir, 0o777);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  await run(asPostgres([bin('initdb'), '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']));
  const pgCtl = (...args: string[]) => run(asPostgres([bin('pg_ctl'), '-D', data, '-w', '-t', '30', ...args]));
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => pgCtl('-o', options, '-l', join(dir, 'postgres.log'), 'start');
  await start();
  await run(asPostgres([bin('createdb'), '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'faults']));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/faults`,
    start,
    stop: () => pgCtl('-m', 'fast', 'stop'),
    restart: () => pgCtl('-m', 'fast', '-o', options, 'restart'),
    destroy: () => {
      spawnSync(...asPostgres([bin('pg_ctl'), '-D', data, '-m', 'immediate', 'stop']), { stdio: 'ignore' }); // may be stopped already
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startOwnRedis(dir = mkdtempSync(join(tmpdir(), 'dob-faults-redis-'))): Promise<OwnServer> {
  const port = await freePort();
  const pidfile = join(dir, 'redis.pid');
  const start = () =>
    run([
      'redis-server',
      [
        '--daemonize',
        'yes',
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--pidfile',
        pidfile,
        '--logfile',
        join(dir, 'redis.log'),
      ],
    ]);
  const ping = () =>
    spawnSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' })
      .stdout?.toString()
      .trim() === 'PONG';
  const waitFor = async (up: boolean) => {
    const deadline = Date.now() + 15_000;
    while (ping() !== up) {
      if (Date.now() > deadline) throw new Error(`redis on ${port} did not ${up ? 'start' : 'stop'} within 15 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    await run(['redis-cli', ['-p', String(port), 'shutdown', 'nosave']]).catch(() => undefined); // the connection ends as it stops
    await waitFor(false);
  };
  await start();
  await waitFor(true);
  return {
    url: `redis://127.0.0.1:${port}`,
    start: async () => {
      await start();
      await waitFor(true);
    },
    stop,
    restart: async () => {
      await stop();
      await start();
      await waitFor(true);
    },
    destroy: () => {
      spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether something accepts TCP connections on the loopback port now. */
const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/**
 * FerretDB (MongoDB wire) of its own on `postgresUrl` (a database of the suite's PostgreSQL, which it must hold), the
 * binary `npm run services` installs. stop() ends it with SIGTERM as a service manager does; start() runs it again on
 * the same port.
 */
export async function startOwnFerretDb(postgresUrl: string, dir = mkdtempSync(join(tmpdir(), 'dob-faults-ferretdb-'))): Promise<OwnServer> {
  const bin = join(homedir(), '.cache/dob-services/bin/ferretdb-v1.24.2');
  const port = await freePort();
  let child: ChildProcess | undefined;
  const waitFor = async (up: boolean) => {
    const deadline = Date.now() + 15_000;
    while ((await accepting(port)) !== up) {
      if (Date.now() > deadline) throw new Error(`ferretdb on ${port} did not ${up ? 'start' : 'stop'} within 15 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const start = async () => {
    const args = [
      '--handler=postgresql',
      `--postgresql-url=${postgresUrl}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      `--state-dir=${dir}`,
      '--telemetry=disable',
      '--log-level=warn',
    ];
    child = spawn(bin, args, { stdio: 'ignore' });
    await waitFor(true);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGTERM');
    await exited;
    await waitFor(false);
  };
  await start();
  return {
    url: `mongodb://127.0.0.1:${port}`,
    start,
    stop,
    restart: async () => {
      await stop();
      await start();
    },
    destroy: () => {
      child?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
