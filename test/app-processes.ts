import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createPostgresDatabase } from '@dob/sql';
import { testServices } from './services';
import { testSchemaName } from '../libs/sql/src/testing/test-databases';

export const ROOT = join(__dirname, '..');

/** One app started the way the README says (`npm run start:<app>` with its variables), output captured. */
export interface AppProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** stdout + stderr so far. */
  output(): string;
  /** npm's exit code once it has ended (1 when the app refused to start: npm passes the script's code on). */
  readonly exited: Promise<number | null>;
  /**
   * Stops it like a container runtime (or Ctrl-C, with SIGINT): the signal to the process group (npm does not forward signals to its script,
   * so the group is signalled: npm, the shell and node), SIGKILL after `graceMs`. Resolves when every process of
   * the group is gone; true when that happened within the grace period (a clean stop).
   */
  stop(graceMs?: number, signal?: 'SIGTERM' | 'SIGINT'): Promise<boolean>;
}

/**
 * `npm run <script>` in the repository with exactly `env` (plus PATH, HOME and the compile cache's folder, nothing
 * else from this process's environment, so a developer's DATABASE_URL cannot leak in), in its own process group so stop() reaches the app.
 */
export function startApp(script: string, env: Record<string, string>): AppProcess {
  return startProcess(script, 'npm', ['run', '--silent', script], env);
}

const compileCache = (): Record<string, string> => (process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {});

/** `command args` in the repository, as startApp runs npm (benchmarks start an app straight with `node <flags>`). */
export function startProcess(name: string, command: string, args: readonly string[], env: Record<string, string>): AppProcess {
  const child = spawn(command, args, {
    cwd: ROOT,
    // V8's compile cache passes through (test/child-processes.setup.js): it changes how fast code loads, not what runs.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...compileCache(), ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const group = -child.pid!;
  const signal = (sig: NodeJS.Signals | 0): boolean => {
    try {
      process.kill(group, sig);
      return true;
    } catch {
      return false; // ESRCH: the group is gone
    }
  };
  return {
    name,
    child,
    output: () => out,
    exited,
    async stop(graceMs = 10_000, how: 'SIGTERM' | 'SIGINT' = 'SIGTERM') {
      const deadline = Date.now() + graceMs;
      signal(how); // SIGINT to the group is what Ctrl-C in a terminal sends
      while (signal(0)) {
        if (Date.now() > deadline) {
          signal('SIGKILL');
          while (signal(0)) await new Promise((r) => setTimeout(r, 50));
          return false;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return true;
    },
  };
}

export { freePort } from '../libs/runtime/src/testing/free-port';

/** A fresh schema on the test PostgreSQL, as a DATABASE_URL the apps use unchanged (search_path in the URL). */
export async function freshDatabaseUrl(): Promise<string> {
  const schema = testSchemaName();
  const db = await createPostgresDatabase({ connectionString: testServices.postgres, schema });
  await db.close();
  return `${testServices.postgres}?options=-c%20search_path%3D${schema}`;
}

/** Polls until `probe` is truthy; fails with `what` and the apps' output after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs: number, apps: AppProcess[] = []): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}\n${apps.map((a) => `--- ${a.name}\n${a.output().slice(-3000)}`).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
