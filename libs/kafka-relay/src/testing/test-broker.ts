import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A Kafka broker owned by one test: the same Apache Kafka jars `npm run services` cached (scripts/services.sh), its
 * own free ports and its own temporary log dir, so a test may stop, kill and restart it without touching the shared
 * broker other engineers' tests use. One combined KRaft node, like the shared one; topics are not auto-created (the
 * relay must create its own). Every wait is bounded; `destroy()` kills the process and removes the dir.
 */
export interface TestBroker {
  readonly brokers: string[];
  readonly port: number;
  /** Starts (or restarts, on the same dir and ports) and waits until it accepts clients. */
  start(): Promise<void>;
  /** Clean stop (SIGTERM, controlled shutdown), waiting for the process to exit. */
  stop(): Promise<void>;
  destroy(): Promise<void>;
  readonly running: boolean;
}

const KAFKA_VERSION = process.env.KAFKA_VERSION ?? '4.1.1';
const cacheDir = () => process.env.DOB_SERVICES_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'dob-services');

export function kafkaJarsDir(): string {
  return join(cacheDir(), `kafka-${KAFKA_VERSION}`, 'libs');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

export async function startTestBroker(options: { startTimeoutMs?: number } = {}): Promise<TestBroker> {
  const libs = kafkaJarsDir();
  if (!existsSync(join(libs, '.complete'))) throw new Error(`no Kafka jars in ${libs}: run \`npm run services\` once`);
  const [port, controllerPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'kafka-test-'));
  const props = join(dir, 'server.properties');
  const log4j = join(dir, 'log4j2.properties');
  const logFile = join(dir, 'kafka.log');
  writeFileSync(
    props,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
      'controller.listener.names=CONTROLLER',
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      'inter.broker.listener.name=PLAINTEXT',
      `log.dirs=${join(dir, 'data')}`,
      'num.partitions=1',
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'share.coordinator.state.topic.replication.factor=1',
      'share.coordinator.state.topic.min.isr=1',
      'group.initial.rebalance.delay.ms=0',
      'auto.create.topics.enable=false',
      '',
    ].join('\n'),
  );
  writeFileSync(
    log4j,
    [
      'rootLogger.level=WARN',
      'rootLogger.appenderRef.f.ref=F',
      'appender.f.type=Console',
      'appender.f.name=F',
      'appender.f.layout.type=PatternLayout',
      'appender.f.layout.pattern=[%d] %p %m (%c)%n',
      'logger.server.name=kafka.server.KafkaRaftServer',
      'logger.server.level=INFO',
      '',
    ].join('\n'),
  );
  const java = ['-cp', `${libs}/*`, `-Dlog4j2.configurationFile=${log4j}`];
  const format = spawnSync(
    'java',
    [...java, 'kafka.tools.StorageTool', 'format', '-t', randomBytes(16).toString('base64url'), '-c', props, '--ignore-formatted'],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (format.status !== 0) throw new Error(`formatting the test broker's log dir failed: ${format.stderr || format.stdout}`);

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const startTimeoutMs = options.startTimeoutMs ?? 90_000;

  const broker: TestBroker = {
    brokers: [`127.0.0.1:${port}`],
    port,
    get running() {
      return child !== undefined;
    },
    async start() {
      if (child) return;
      const out = openSync(logFile, 'a');
      const started = readFileSync(logFile, { flag: 'a+' }).length;
      // Quick-start JVM flags: tests need a broker soon, not peak throughput.
      child = spawn('java', ['-Xms128m', '-Xmx384m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', ...java, 'kafka.Kafka', props], {
        stdio: ['ignore', out, out],
      });
      closeSync(out);
      const me = child;
      exited = new Promise((resolve) => me.once('exit', () => resolve()));
      void exited.then(() => {
        if (child === me) child = undefined;
      });
      const deadline = Date.now() + startTimeoutMs;
      for (;;) {
        const text = readFileSync(logFile, 'utf8').slice(started);
        if (text.includes('Kafka Server started') && (await portOpen(port))) return;
        if (!child) throw new Error(`test broker exited during start:\n${text.slice(-2000)}`);
        if (Date.now() > deadline) throw new Error(`test broker not up within ${startTimeoutMs} ms:\n${text.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      const me = child;
      if (!me) return;
      me.kill('SIGTERM');
      const killer = setTimeout(() => me.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(killer);
    },
    async destroy() {
      child?.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await broker.start();
  return broker;
}
