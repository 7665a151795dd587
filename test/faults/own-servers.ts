import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../app-processes';

/**
 * Servers of the fault suite's own, on free loopback ports in a temporary folder — never the shared ones other
 * tests use (5432, 6379, …), since the suite stops and restarts them. PostgreSQL runs as the `postgres` user when
 * this process is root (initdb refuses root), Redis as whoever runs the suite.
 */
export interface OwnServer {
  readonly url: string;
  stop(): void;
  start(): void;
  /** Stop and start again, as an upgrade or a crash-restart does. */
  restart(): void;
  /** Stops it for good and removes its folder. */
  destroy(): void;
}

const asPostgres = (args: string[]) =>
  (process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0]!, args.slice(1)]) as [string, string[]];
function run([command, args]: [string, string[]]): void {
  const r = spawnSync(command, args, { stdio: 'pipe', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr?.toString() || r.error?.message}`);
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
  run(asPostgres([bin('initdb'), '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']));
  const pgCtl = (...args: string[]) => run(asPostgres([bin('pg_ctl'), '-D', data, '-w', '-t', '30', ...args]));
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => pgCtl('-o', options, '-l', join(dir, 'postgres.log'), 'start');
  start();
  run(asPostgres([bin('createdb'), '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'faults']));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/faults`,
    start,
    stop: () => pgCtl('-m', 'fast', 'stop'),
    restart: () => pgCtl('-m', 'fast', '-o', options, 'restart'),
    destroy: () => {
      try {
        pgCtl('-m', 'immediate', 'stop');
      } catch {
        /* already stopped */
      }
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
  const waitFor = (up: boolean) => {
    const deadline = Date.now() + 15_000;
    while (ping() !== up) {
      if (Date.now() > deadline) throw new Error(`redis on ${port} did not ${up ? 'start' : 'stop'} within 15 s`);
      spawnSync('sleep', ['0.05']);
    }
  };
  const stop = () => {
    spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'pipe' });
    waitFor(false);
  };
  start();
  waitFor(true);
  return {
    url: `redis://127.0.0.1:${port}`,
    start: () => {
      start();
      waitFor(true);
    },
    stop,
    restart: () => {
      stop();
      start();
      waitFor(true);
    },
    destroy: () => {
      if (ping()) stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
