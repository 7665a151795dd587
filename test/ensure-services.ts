import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { Client } from 'pg';
import { fixKafkajsRequestQueue } from '@dob/kafka-relay';
import { testServices } from './services';
import { workerServerPorts } from './worker-databases';

/**
 * `npm test`'s pre-step: the int and e2e tiers need PostgreSQL, Redis, Kafka and FerretDB (test/services.ts says
 * where). Each is asked to answer its own protocol; the ones that do not and live on this machine are started by
 * scripts/services.sh (installs what is missing, idempotent), the rest stop the run at once with ONE line naming the
 * server and the command that fixes it. When all answer this takes about a second.
 */

/** How long one probe may take before the server counts as not answering. */
const PROBE_TIMEOUT_MS = 3_000;
/** A first run installs (apt, Maven Central, a Go build): minutes; every wait has a bound. */
const SERVICES_TIMEOUT_MS = 30 * 60_000;
/** After this long without an answer from services.sh, say what is going on. */
const PROGRESS_AFTER_MS = 3_000;

export interface TestServer {
  /** The name scripts/services.sh knows it by. */
  readonly name: 'postgresql' | 'redis' | 'kafka' | 'ferretdb';
  readonly label: string;
  readonly url: string;
  /** The variable that points the tests elsewhere. */
  readonly variable: string;
  /** The services.sh variable that sets its port, and the port the tests expect. */
  readonly portVariable: string;
  readonly host: string;
  readonly port: number;
  probe(): Promise<void>;
}

function hostAndPort(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url.includes('://') ? url : `tcp://${url}`);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || defaultPort) };
}

const withTimeout = <T>(what: Promise<T>, ms: number): Promise<T> => {
  let timer!: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms)));
  return Promise.race([what, late]).finally(() => clearTimeout(timer));
};

export function testServers(services = testServices): TestServer[] {
  const kafkaBroker = services.kafkaBrokers[0] ?? '127.0.0.1:9092';
  return [
    {
      name: 'postgresql',
      label: 'PostgreSQL',
      url: services.postgres,
      variable: 'TEST_DATABASE_URL',
      portVariable: 'DOB_PG_PORT',
      ...hostAndPort(services.postgres, 5432),
      async probe() {
        const client = new Client({ connectionString: services.postgres, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
        try {
          await withTimeout(
            client.connect().then(() => client.query('SELECT 1')),
            PROBE_TIMEOUT_MS,
          );
        } finally {
          await client.end().catch(() => undefined);
        }
      },
    },
    {
      name: 'redis',
      label: 'Redis',
      url: services.redis,
      variable: 'TEST_REDIS_URL',
      portVariable: 'DOB_REDIS_PORT',
      ...hostAndPort(services.redis, 6379),
      async probe() {
        const redis = new Redis(services.redis, {
          lazyConnect: true,
          connectTimeout: PROBE_TIMEOUT_MS,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        redis.on('error', () => undefined); // the rejected connect() below reports it
        try {
          await withTimeout(
            redis.connect().then(() => redis.ping()),
            PROBE_TIMEOUT_MS,
          );
        } finally {
          redis.disconnect();
        }
      },
    },
    {
      name: 'kafka',
      label: 'Kafka',
      url: services.kafkaBrokers.join(','),
      variable: 'TEST_KAFKA_BROKERS',
      portVariable: 'DOB_KAFKA_PORT',
      ...hostAndPort(kafkaBroker, 9092),
      async probe() {
        fixKafkajsRequestQueue(); // kafkajs#1751: a negative timer per response, a warning each on Node 24
        const admin = new Kafka({
          clientId: 'npm-test-probe',
          brokers: [...services.kafkaBrokers],
          connectionTimeout: PROBE_TIMEOUT_MS,
          retry: { retries: 0 },
          logLevel: logLevel.NOTHING,
        }).admin();
        try {
          await withTimeout(
            admin.connect().then(() => admin.describeCluster()),
            PROBE_TIMEOUT_MS,
          );
        } finally {
          await admin.disconnect().catch(() => undefined);
        }
      },
    },
    {
      name: 'ferretdb',
      label: 'FerretDB (MongoDB wire)',
      url: services.mongodb,
      variable: 'TEST_MONGODB_URL',
      portVariable: 'DOB_FERRETDB_PORT',
      ...hostAndPort(services.mongodb, 27017),
      async probe() {
        const client = new MongoClient(services.mongodb, { serverSelectionTimeoutMS: PROBE_TIMEOUT_MS, connectTimeoutMS: PROBE_TIMEOUT_MS });
        try {
          await withTimeout(
            client.connect().then(() => client.db('admin').command({ ping: 1 })),
            PROBE_TIMEOUT_MS,
          );
        } finally {
          await client.close().catch(() => undefined);
        }
      },
    },
  ];
}

const isLocal = (host: string) => ['127.0.0.1', 'localhost', '::1'].includes(host);

/** The servers that do not answer, each with why. */
async function unanswered(servers: readonly TestServer[]): Promise<{ server: TestServer; why: string }[]> {
  const results = await Promise.all(
    servers.map((server) =>
      server.probe().then(
        () => undefined,
        (e: unknown) => ({ server, why: e instanceof Error ? e.message : String(e) }),
      ),
    ),
  );
  return results.filter((r) => r !== undefined);
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Runs `scripts/services.sh start <names>` on the tests' ports; resolves with its last complaint, or undefined.
 * FerretDB keeps its data in the PostgreSQL on `postgresPort` (the tests' own, or a Jest worker's cluster).
 */
function startWithServicesScript(servers: readonly TestServer[], postgresPort: number): Promise<string | undefined> {
  const env: NodeJS.ProcessEnv = { ...process.env, DOB_PG_PORT: String(postgresPort) };
  for (const s of servers) env[s.portVariable] = String(s.port);
  const names = servers.map((s) => s.name);
  return new Promise((resolve) => {
    const child = spawn('bash', [join(__dirname, '..', 'scripts', 'services.sh'), 'start', ...names], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: SERVICES_TIMEOUT_MS,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const progress = setTimeout(
      () => process.stderr.write(`npm test: starting ${names.join(', ')} with scripts/services.sh (a first run installs them: minutes)\n`),
      PROGRESS_AFTER_MS,
    );
    child.on('close', (code, signal) => {
      clearTimeout(progress);
      if (code === 0) return resolve(undefined);
      const complaint = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
      resolve(signal ? `services.sh was stopped (${signal}) after ${SERVICES_TIMEOUT_MS / 60_000} min` : complaint.replace(/^services: /, ''));
    });
  });
}

/** The one line that ends the run, or undefined when every server answers. */
export async function ensureTestServers(
  servers: readonly TestServer[] = testServers(),
  postgresPort = hostAndPort(testServices.postgres, 5432).port,
): Promise<string | undefined> {
  const down = await unanswered(servers);
  if (down.length === 0) return undefined;
  const remote = down.find((d) => !isLocal(d.server.host));
  if (remote) {
    const { server, why } = remote;
    return oneLine(
      `npm test: ${server.label} at ${server.url} does not answer (${why}): start it there, or unset ${server.variable} ` +
        `to use this machine's (\`npm run services\` installs and starts it)`,
    );
  }
  const complaint = await startWithServicesScript(
    down.map((d) => d.server),
    postgresPort,
  );
  const still = await unanswered(down.map((d) => d.server));
  if (!complaint && still.length === 0) return undefined;
  const first = still[0] ?? down[0]!;
  return oneLine(
    `npm test: ${first.server.label} at ${first.server.url} does not answer (${first.why}) and could not be started` +
      `${complaint ? `: ${complaint}` : ''} — fix that and run \`npm run services\`, or point ${first.server.variable} at a running one`,
  );
}

/**
 * The servers of Jest's other workers (test/worker-databases.js): each a PostgreSQL cluster and a FerretDB storing
 * its data there. None when TEST_DATABASE_URL or TEST_MONGODB_URL points every worker at one server.
 */
export function workerServers(): { postgresPort: number; servers: TestServer[] }[] {
  if (process.env.TEST_DATABASE_URL || process.env.TEST_MONGODB_URL) return [];
  return workerServerPorts()
    .slice(1)
    .map(({ postgres, mongo }) => ({
      postgresPort: postgres,
      servers: testServers({
        ...testServices,
        postgres: `postgres://postgres@127.0.0.1:${postgres}/test`,
        mongodb: `mongodb://127.0.0.1:${mongo}/`,
      }).filter((s) => s.name === 'postgresql' || s.name === 'ferretdb'),
    }));
}

/** The shared servers, then each worker's own (services.sh starts one PostgreSQL port per call). */
async function ensureAll(): Promise<string | undefined> {
  let failure = await ensureTestServers();
  for (const worker of workerServers()) failure ??= await ensureTestServers(worker.servers, worker.postgresPort);
  return failure;
}

if (require.main === module) {
  ensureAll().then(
    (failure) => {
      if (failure) {
        process.stderr.write(`${failure}\n`);
        process.exit(1);
      }
      process.exit(0);
    },
    (e: unknown) => {
      process.stderr.write(`npm test: checking the test servers failed: ${oneLine(String(e))}\n`);
      process.exit(1);
    },
  );
}
