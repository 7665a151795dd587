import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { positionFromString, type EventStore, type GlobalPosition } from '@dob/event-store';
import { kafkaRelayStatus, replayForOperator, type KafkaRelaySettings } from '@dob/kafka-relay';
import type { ProjectionRunner } from '@dob/projections';
import { checkAdminToken, publishAdminEndpoint } from '@dob/runtime';
import type { SqlDatabase } from '@dob/sql';

/**
 * The admin endpoint of a running system (libs/runtime admin-endpoint.ts says why and who may call it): what
 * `npm run ops -- projections …` and `kafka …` do, performed by the process that holds the data folder, so they work
 * on the embedded default without stopping it. The rebuild is the runner's own blue/green rebuild: the API keeps
 * reading the serving slot until the atomic switch.
 *
 *   GET  /projections                 → 200 ProjectionReport[]
 *   POST /projections/<name>/rebuild  → 200 NDJSON: {"progress":{applied,total}}… then {"result":…} or {"error":…}
 *   POST /projections/<name>/reset    → 200 {"ok":true}     POST /projections/<name>/retry → 200 {"ok":true}
 *   GET  /kafka                       → 200 RelayStatus     (409 when the system runs no Kafka relay)
 *   POST /kafka/replay {after, to?}   → 200 NDJSON: {"progress":{published,done,total}}… then {"result":…}
 *
 * Plain node:http on 127.0.0.1 (a handful of routes, one of them streaming, need no framework), every request
 * authorized with the bearer token of `<DATA_DIR>/admin.json`.
 */
export interface AdminTargets {
  readonly dataDir: string;
  readonly projections: ProjectionRunner;
  readonly db: SqlDatabase;
  readonly eventStore: EventStore;
  /** Present when KAFKA_BROKERS is set. */
  readonly kafka?: KafkaRelaySettings;
}

export interface AdminServer {
  readonly url: string;
  close(): Promise<void>;
}

/** A client mistake, answered with its status and message. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A streamed operation writes a line at least this often, so the CLI can tell a slow one from a dead one. */
const HEARTBEAT_MS = 5_000;
const MAX_BODY_BYTES = 4_096;

const asJson = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(asJson(body));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) {
    text += (chunk as Buffer).toString();
    if (text.length > MAX_BODY_BYTES) throw new Refusal(413, 'body too large');
  }
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new Refusal(400, 'the body must be a JSON object');
}

function position(value: unknown, name: string): GlobalPosition {
  try {
    return positionFromString(String(value));
  } catch {
    throw new Refusal(400, `${name} must be a position commit:prepare, got ${JSON.stringify(value)}`);
  }
}

/** Streams one long operation as NDJSON: progress lines, a heartbeat while quiet, then its result or error. */
async function stream<T>(res: ServerResponse, run: (progress: (p: unknown) => void) => Promise<T>): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  // A CLI that goes away (Ctrl-C) leaves the operation running here; its lines then go nowhere.
  res.on('error', () => undefined);
  const line = (value: unknown) => res.write(`${asJson(value)}\n`);
  const heartbeat = setInterval(() => line({}), HEARTBEAT_MS);
  try {
    line({ result: await run((progress) => line({ progress })) });
  } catch (e) {
    line({ error: e instanceof Error ? e.message : String(e) });
  } finally {
    clearInterval(heartbeat);
    res.end();
  }
}

export async function startAdminServer(targets: AdminTargets): Promise<AdminServer> {
  const { projections } = targets;
  const projectionNamed = (name: string) => {
    if (!projections.names.includes(name)) throw new Refusal(404, `unknown projection ${name}; known: ${projections.names.join(', ')}`);
    return name;
  };
  const kafka = () => {
    if (!targets.kafka) throw new Refusal(409, 'the running system has no Kafka relay (KAFKA_BROKERS is not set for it)');
    return targets.kafka;
  };

  async function route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const projection = /^\/projections\/([^/]+)\/(rebuild|reset|retry)$/.exec(path);
    if (req.method === 'GET' && path === '/projections') return send(res, 200, await projections.status());
    if (req.method === 'POST' && projection) {
      const name = projectionNamed(decodeURIComponent(projection[1]!));
      const action = projection[2]!;
      if (action === 'rebuild') {
        return stream(res, (progress) => projections.rebuild(name, { onProgress: ({ applied, total }) => progress({ applied, total }) }));
      }
      // The runner refuses what the projection's state does not allow (no active slot yet, another version).
      await (action === 'reset' ? projections.reset(name) : projections.retry(name)).catch((e: Error) => {
        throw new Refusal(409, e.message);
      });
      return send(res, 200, { ok: true });
    }
    if (req.method === 'GET' && path === '/kafka') return send(res, 200, await kafkaRelayStatus(targets.db, targets.eventStore, kafka().topicPrefix));
    if (req.method === 'POST' && path === '/kafka/replay') {
      const settings = kafka();
      const body = await readBody(req);
      const after = position(body.after, 'after');
      const to = body.to === undefined ? undefined : position(body.to, 'to');
      return stream(res, (progress) =>
        replayForOperator({ db: targets.db, events: targets.eventStore, settings, after, ...(to ? { to } : {}), onProgress: progress }),
      );
    }
    throw new Refusal(404, `no route ${req.method} ${path}`);
  }

  let token = '';
  const server = createServer((req, res) => {
    const verdict = checkAdminToken(token, req.headers.authorization);
    if (verdict !== 200) {
      send(res, verdict, { error: verdict === 401 ? 'missing bearer token (see <DATA_DIR>/admin.json)' : 'wrong token' });
      return;
    }
    route(req, res, (req.url ?? '/').split('?')[0]!).catch((e: unknown) => {
      if (res.headersSent) return void res.end();
      if (e instanceof Refusal) send(res, e.status, { error: e.message });
      else send(res, 500, { error: e instanceof Error ? e.message : String(e) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const published = publishAdminEndpoint(targets.dataDir, url);
  token = published.token;
  return {
    url,
    async close() {
      published.remove();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
