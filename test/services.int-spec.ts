import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { Client } from 'pg';
import { testServices } from './services';

// Each server `npm run services` starts is the real one, answering its own protocol with its own identity.
describe('the servers npm run services starts', () => {
  it('PostgreSQL answers SELECT version() as PostgreSQL, with trust auth on loopback', async () => {
    const client = new Client({ connectionString: testServices.postgres });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: string }>('SELECT version()');
      expect(rows[0].version).toMatch(/^PostgreSQL \d+/);
    } finally {
      await client.end();
    }
  });

  it('Redis answers INFO server with its version and keeps nothing on disk', async () => {
    const redis = new Redis(testServices.redis, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      expect(await redis.info('server')).toMatch(/redis_version:\d+\.\d+/);
      const [, save] = (await redis.config('GET', 'save')) as string[];
      const [, aof] = (await redis.config('GET', 'appendonly')) as string[];
      expect({ save, aof }).toEqual({ save: '', aof: 'no' });
    } finally {
      redis.disconnect();
    }
  });

  it('Kafka answers ApiVersions and cluster metadata through kafkajs: one KRaft broker, node 1', async () => {
    const kafka = new Kafka({ clientId: 'services-int-spec', brokers: testServices.kafkaBrokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect(); // the connection negotiates ApiVersions before any other request
    try {
      const cluster = await admin.describeCluster();
      expect(cluster.brokers).toEqual([expect.objectContaining({ nodeId: 1, host: '127.0.0.1', port: 9092 })]);
      expect(cluster.controller).toBe(1);
      expect(cluster.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    } finally {
      await admin.disconnect();
    }
  });

  it('FerretDB answers buildInfo through the mongodb driver and stores what it is given in PostgreSQL', async () => {
    const client = new MongoClient(testServices.mongodb, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    const backend = new Client({ connectionString: testServices.postgres.replace(/\/[^/]*$/, '/ferretdb') });
    try {
      const info = await client.db('admin').command({ buildInfo: 1 });
      expect(info).toMatchObject({ ok: 1, ferretdbVersion: expect.stringMatching(/^v1\.24\./) });
      expect(info.version).toMatch(/^\d+\.\d+\.\d+$/); // the MongoDB version it speaks for

      // FerretDB 1.x's postgresql handler keeps each MongoDB database as a schema of the `ferretdb` database.
      const probe = client.db('services_probe');
      await probe.collection('probe').insertOne({ at: new Date() });
      await backend.connect();
      const { rowCount } = await backend.query(`SELECT 1 FROM information_schema.schemata WHERE schema_name = 'services_probe'`);
      expect(rowCount).toBe(1);
      await probe.dropDatabase();
    } finally {
      await client.close();
      await backend.end();
    }
  });
});
