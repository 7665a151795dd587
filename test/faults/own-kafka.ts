import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaJarsDir, kafkaLog4j, spawnKafkaNode } from '../../libs/kafka-relay/src/testing/test-broker';
import { freePort } from '../app-processes';

/**
 * Three Apache Kafka KRaft nodes of the fault suite's own (each a combined broker + controller, a 3-voter quorum), from
 * the jars `npm run services` cached, on free loopback ports in the suite's temporary folder — never the shared
 * broker. Defaults for the topics the relay creates: replication factor 3 from the relay's setting,
 * `min.insync.replicas` 2 from the brokers' (so one broker away still takes `acks=all` writes, two away do not).
 * Settings for a test: small heaps, a broker fenced 3 s after its heartbeats stop (Kafka's default 9 s).
 */
export interface KafkaNode {
  readonly id: number;
  readonly port: number;
  readonly running: boolean;
  /** Starts it (again, on its own log dir) and waits until it says it started. */
  start(): Promise<void>;
  /** kill -9, waiting for the process to be gone. */
  kill(): Promise<void>;
}

export interface OwnKafka {
  readonly brokers: string[];
  readonly nodes: readonly KafkaNode[];
  /** The node leading `topic`'s partition, as the cluster's metadata says now. */
  partitionLeader(topic: string, partition?: number): Promise<number>;
  /** The quorum's leader (the active controller): the leader of the latest epoch the running nodes follow. */
  activeController(): number;
  /** Every node started (the stopped ones) and the cluster answering metadata with all three. */
  startAll(): Promise<void>;
  /** Whether every partition of `topics` has all three replicas in sync again (after a broker returned). */
  inSync(topics: readonly string[]): Promise<boolean>;
  destroy(): Promise<void>;
}

const START_TIMEOUT_MS = 120_000;

export async function startOwnKafka(dir: string): Promise<OwnKafka> {
  const libs = kafkaJarsDir();
  if (!existsSync(join(libs, '.complete'))) throw new Error(`no Kafka jars in ${libs}: run \`npm run services\` once`);
  const ids = [1, 2, 3];
  const ports = new Map<number, { broker: number; controller: number }>();
  for (const id of ids) ports.set(id, { broker: await freePort(), controller: await freePort() });
  const voters = ids.map((id) => `${id}@127.0.0.1:${ports.get(id)!.controller}`).join(',');
  // base64url may begin with '-' (one run in 64), which the tool's argument parser takes for an option: the id is
  // passed as `--cluster-id=<id>` (Kafka's own Uuid.randomUuid() redraws such ids for the same reason).
  const clusterId = randomBytes(16).toString('base64url');
  const log4j = join(dir, 'log4j2.properties');
  // "Completed transition to FollowerState(…, epoch=…, leader=…)": which node is the active controller.
  writeFileSync(log4j, kafkaLog4j(['org.apache.kafka.raft.QuorumState']));
  const java = ['-cp', `${libs}/*`, `-Dlog4j2.configurationFile=${log4j}`];

  const node = (id: number): KafkaNode & { log: string } => {
    const { broker, controller } = ports.get(id)!;
    const props = join(dir, `node-${id}.properties`);
    const log = join(dir, `node-${id}.log`);
    writeFileSync(
      props,
      [
        'process.roles=broker,controller',
        `node.id=${id}`,
        `controller.quorum.voters=${voters}`,
        `listeners=PLAINTEXT://127.0.0.1:${broker},CONTROLLER://127.0.0.1:${controller}`,
        `advertised.listeners=PLAINTEXT://127.0.0.1:${broker}`,
        'controller.listener.names=CONTROLLER',
        'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
        'inter.broker.listener.name=PLAINTEXT',
        `log.dirs=${join(dir, `data-${id}`)}`,
        'num.partitions=1',
        'default.replication.factor=3',
        'min.insync.replicas=2',
        'offsets.topic.replication.factor=3',
        'offsets.topic.num.partitions=3',
        'transaction.state.log.replication.factor=3',
        'transaction.state.log.min.isr=2',
        'share.coordinator.state.topic.replication.factor=3',
        'share.coordinator.state.topic.min.isr=2',
        'group.initial.rebalance.delay.ms=0',
        'auto.create.topics.enable=false',
        'unclean.leader.election.enable=false',
        // A dead broker is fenced (its partitions led elsewhere) 3 s after its last heartbeat, not 9 s.
        'broker.heartbeat.interval.ms=500',
        'broker.session.timeout.ms=3000',
        'replica.lag.time.max.ms=5000',
        '',
      ].join('\n'),
    );
    const format = spawnSync('java', [...java, 'kafka.tools.StorageTool', 'format', `--cluster-id=${clusterId}`, '-c', props, '--ignore-formatted'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (format.status !== 0) throw new Error(`formatting kafka node ${id} failed: ${format.stderr || format.stdout}`);
    let child: ChildProcess | undefined;
    let exited: Promise<void> = Promise.resolve();
    return {
      id,
      port: broker,
      log,
      get running() {
        return child !== undefined;
      },
      async start() {
        if (child) return;
        const started = spawnKafkaNode({ java: ['-Xms64m', '-Xmx256m', ...java], props, logFile: log, what: `kafka node ${id}` });
        child = started.child;
        exited = started.exited;
        void exited.then(() => {
          if (child === started.child) child = undefined;
        });
        await started.started(START_TIMEOUT_MS);
      },
      async kill() {
        child?.kill('SIGKILL');
        await exited;
      },
    };
  };

  const nodes = ids.map(node);
  const brokers = nodes.map((n) => `127.0.0.1:${n.port}`);
  const kafka = new Kafka({ clientId: 'faults-kafka-admin', brokers, logLevel: logLevel.NOTHING, connectionTimeout: 3000, requestTimeout: 10_000 });
  const cluster: OwnKafka = {
    brokers,
    nodes,
    async partitionLeader(topic, partition = 0) {
      const admin = kafka.admin();
      await admin.connect();
      try {
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
        return topics[0]!.partitions.find((p) => p.partitionId === partition)!.leader;
      } finally {
        await admin.disconnect();
      }
    },
    activeController() {
      let best = { id: 0, epoch: -1 };
      for (const n of nodes) {
        if (!n.running) continue;
        // A quorum of three needs two: some running node follows the leader, which may itself be running alone.
        for (const m of readFileSync(n.log, 'utf8').matchAll(/Completed transition to FollowerState\([^)]*?epoch=(\d+), leader=(\d+)/g)) {
          if (Number(m[1]) > best.epoch) best = { id: Number(m[2]), epoch: Number(m[1]) };
        }
      }
      if (best.epoch < 0) throw new Error('no running kafka node has logged following a quorum leader');
      return best.id;
    },
    async startAll() {
      // Together: a node waits for the quorum (two voters) before it says it started.
      await Promise.all(nodes.map((n) => n.start()));
      const admin = kafka.admin();
      await admin.connect();
      try {
        const deadline = Date.now() + START_TIMEOUT_MS;
        while ((await admin.describeCluster()).brokers.length < nodes.length) {
          if (Date.now() > deadline) throw new Error('the kafka cluster does not list its three brokers');
          await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        await admin.disconnect();
      }
    },
    async inSync(topics) {
      const admin = kafka.admin();
      await admin.connect();
      try {
        const metadata = await admin.fetchTopicMetadata({ topics: [...topics] });
        return metadata.topics.every((t) => t.partitions.every((p) => p.isr.length === nodes.length));
      } finally {
        await admin.disconnect();
      }
    },
    async destroy() {
      await Promise.all(nodes.map((n) => n.kill()));
    },
  };
  await cluster.startAll().catch(async (e: unknown) => {
    await cluster.destroy();
    throw e;
  });
  return cluster;
}
