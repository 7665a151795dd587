import { randomBytes } from 'node:crypto';
import { openMongoDatabase, type MongoDatabase } from '@dob/mongo';
import { TEST_MONGODB_URL } from '../../../mongo/src/testing/test-mongo';
import { expectAnswersAgainWithin, expectUnavailableWithin } from '../../../../test/faults/expect-unavailable';
import { TcpProxy } from '../../../../test/faults/tcp-proxy';
import { createMongoReadModelReader } from './mongo-read-model-reader';
import { MongoServingWatch } from './serving-watch';

/**
 * MongoDB (FerretDB here) going away under the API's reader (issue 31): reads fail within 2 s as SERVICE_UNAVAILABLE
 * naming mongodb — the API's 503 + Retry-After — instead of a driver error (500) after a 10 s selection timeout,
 * and answer again once it is back. A proxy stands in for the shared server, which is never stopped.
 */
describe('MongoDB away under the read-model reader', () => {
  let proxy: TcpProxy;
  let mongo: MongoDatabase;
  beforeAll(async () => {
    const target = new URL(TEST_MONGODB_URL);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 27017) });
    mongo = await openMongoDatabase(`mongodb://127.0.0.1:${proxy.port}/t_${randomBytes(6).toString('hex')}`);
  });
  afterAll(async () => {
    await proxy.restore();
    await mongo.db.dropDatabase().catch(() => undefined);
    await mongo.close();
    await proxy.close();
  });

  const read = (reader: ReturnType<typeof createMongoReadModelReader>) => reader.learnedTokens();

  it('refused: 503 within 2 s; back: answers again', async () => {
    const reader = createMongoReadModelReader(mongo, { cacheEntries: 0 });
    await read(reader);
    await proxy.cut();
    await expectUnavailableWithin(2000, 'mongodb', () => read(reader));
    await proxy.restore();
    await expect(expectAnswersAgainWithin(5000, () => read(reader))).resolves.toBeDefined();
  });

  it('silent (accepts, never answers): 503 within 2 s, not a hang', async () => {
    const reader = createMongoReadModelReader(mongo, { cacheEntries: 0 });
    await read(reader);
    await proxy.blackhole();
    await expectUnavailableWithin(2000, 'mongodb', () => read(reader));
    await proxy.restore();
    await expect(expectAnswersAgainWithin(5000, () => read(reader))).resolves.toBeDefined();
  });

  // Silenced: the open connections stay open and nothing comes back (a frozen server, a network dropping packets).
  // The driver has no socket timeout, so before, a read waited until its monitor gave the server up: ≈ 12 s.
  it('silenced (open connections never answer): 503 within 2 s, uncached and through the serving watch', async () => {
    const uncached = createMongoReadModelReader(mongo, { cacheEntries: 0 });
    const serving = new MongoServingWatch(mongo.db).start();
    const cached = createMongoReadModelReader(mongo, { serving });
    try {
      await read(uncached);
      await read(cached);
      proxy.silence();
      await expectUnavailableWithin(2000, 'mongodb', () => read(uncached));
      expect(serving.generation()).toBeUndefined(); // past the bound: no answer cache may serve
      await expectUnavailableWithin(2000, 'mongodb', () => read(cached)); // not the cached answer, not a hang
      await proxy.restore();
      await expect(expectAnswersAgainWithin(5000, () => read(uncached))).resolves.toBeDefined();
      await expect(expectAnswersAgainWithin(5000, () => read(cached))).resolves.toBeDefined();
    } finally {
      serving.stop();
      await proxy.restore();
    }
  }, 30_000);
});
