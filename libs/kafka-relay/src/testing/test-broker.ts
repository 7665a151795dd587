import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../runtime/src/testing/free-port';

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
  writeFileSync(log4j, kafkaLog4j());
  const java = ['-cp', `${libs}/*`, `-Dlog4j2.configurationFile=${log4j}`];
  const format = spawnSync(
    'java',
    // `--cluster-id=`: a base64url id may begin with '-', which the parser would take for an option.
    [...java, 'kafka.tools.StorageTool', 'format', `--cluster-id=${randomBytes(16).toString('base64url')}`, '-c', props, '--ignore-formatted'],
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
      const node = spawnKafkaNode({ java: ['-Xms128m', '-Xmx384m', ...java], props, logFile, what: 'test broker' });
      child = node.child;
      exited = node.exited;
      void exited.then(() => {
        if (child === node.child) child = undefined;
      });
      await node.started(startTimeoutMs, () => portOpen(port));
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

export interface KafkaNodeProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  /** Resolves once the node logged `Kafka Server started` (and `ready()` holds); throws if it exits or times out. */
  started(timeoutMs: number, ready?: () => Promise<boolean>): Promise<void>;
}

/**
 * `java … kafka.Kafka <props>` with its output appended to `logFile`, and quick-start JVM flags (tests need a broker
 * soon, not peak throughput); `java` holds the heap flags and the classpath. Shared by the test broker and the fault
 * suite's three-node cluster (test/faults/own-kafka.ts).
 */
export function spawnKafkaNode(o: { java: readonly string[]; props: string; logFile: string; what: string }): KafkaNodeProcess {
  const from = readFileSync(o.logFile, { flag: 'a+' }).length;
  const out = openSync(o.logFile, 'a');
  const child = spawn('java', ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', ...o.java, 'kafka.Kafka', o.props], { stdio: ['ignore', out, out] });
  closeSync(out);
  let gone = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => (gone = true));
  return {
    child,
    exited,
    async started(timeoutMs, ready = async () => true) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = readFileSync(o.logFile, 'utf8').slice(from);
        if (text.includes('Kafka Server started') && (await ready())) return;
        if (gone) throw new Error(`${o.what} exited during start:\n${text.slice(-2000)}`);
        if (Date.now() > deadline) throw new Error(`${o.what} not up within ${timeoutMs} ms:\n${text.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
}

/** log4j2 settings of a test's Kafka node: warnings, the "Kafka Server started" line, and `infoLoggers` at INFO. */
export function kafkaLog4j(infoLoggers: readonly string[] = []): string {
  return [
    'rootLogger.level=WARN',
    'rootLogger.appenderRef.f.ref=F',
    'appender.f.type=Console',
    'appender.f.name=F',
    'appender.f.layout.type=PatternLayout',
    'appender.f.layout.pattern=[%d] %p %m (%c)%n',
    ...['kafka.server.KafkaRaftServer', ...infoLoggers].flatMap((name, i) => [`logger.l${i}.name=${name}`, `logger.l${i}.level=INFO`]),
    '',
  ].join('\n');
}
