import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { ANALYST_TOPICS, loadKafkaRelaySettings } from '@dob/kafka-relay';
import { deleteTestTopics, startTopicReader, type TopicReader } from '../libs/kafka-relay/src/testing/topic-reader';
import { startSystem, type RunningSystem } from '../apps/all/src/system';
import { testServices } from './services';
import { eventually, settled } from './system-waits';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Issue 12 acceptance through the whole system with KAFKA_BROKERS set (the shared Kafka 4.1 of `npm run services`,
 * topics under a prefix of this run): an agent's buy on the devnet, through the Agent API, reaches analysts on
 * dob.marketplace.v1 within 2 s, keyed by the pool, naming buyer, shares and price, with the store's event id.
 */
describe('a devnet buy through the Agent API reaches the analysts’ marketplace topic', () => {
  const prefix = `e2e${randomBytes(4).toString('hex')}.`;
  let system: RunningSystem;
  let reader: TopicReader;

  const call = async (method: string, path: string, body?: unknown, key?: string): Promise<Json> => {
    const res = await fetch(`${system.apiUrl}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(key ? { 'x-api-key': key } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as Json;
    if (!json.success) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json.error)}`);
    return json.data;
  };

  const dataDir = mkdtempSync(join(tmpdir(), 'kafka-e2e-'));
  beforeAll(async () => {
    system = await startSystem({
      dataDir,
      port: 0,
      devnetPort: 0,
      quiet: true,
      kafka: loadKafkaRelaySettings({ KAFKA_BROKERS: testServices.kafkaBrokers.join(','), KAFKA_TOPIC_PREFIX: prefix, KAFKA_RELAY_POLL_MS: '200' }),
    });
    await settled(system, 180_000);
    await system.kafkaRelay!.waitUntilCaughtUp(60_000);
    reader = await startTopicReader(testServices.kafkaBrokers, [`${prefix}dob.marketplace.v1`]);
  });
  afterAll(async () => {
    await reader?.stop();
    await system?.stop();
    rmSync(dataDir, { recursive: true, force: true }); // ≈ 45 MB a run otherwise left in the temp folder
    await deleteTestTopics(
      testServices.kafkaBrokers,
      ANALYST_TOPICS.map((t) => `${prefix}${t.topic}`),
    );
  });

  it('/health lists the relay, live and not degraded', async () => {
    const health = (await (await fetch(system.healthUrl)).json()) as Json;
    expect(health.status).toBe('ready');
    expect(health.components.kafka_relay).toMatchObject({ status: 'up', ready: true, degraded: false, details: { state: 'live' } });
    // Kafka itself is a watched dependency here as in `npm run start:relay`: optional (events wait in the store).
    expect(health.components.kafka).toMatchObject({ status: 'up', ready: true });
    expect(system.kafkaRelay!.topicNames).toEqual(ANALYST_TOPICS.map((t) => `${prefix}${t.topic}`));
  });

  it('within 2 s of submit-buy: a message keyed by the pool, naming buyer, shares and price, id = the store’s event id', async () => {
    const buyer = Keypair.random();
    expect((await fetch(`${system.friendbotUrl}?addr=${buyer.publicKey()}`)).status).toBe(200);
    const challenge = await call('GET', `/auth/challenge/${buyer.publicKey()}`);
    const signature = Buffer.from(buyer.signMessage(challenge.message)).toString('hex');
    const key: string = (await call('POST', '/auth/register', { wallet: buyer.publicKey(), signature, label: 'kafka e2e', scopes: ['read', 'trade'] })).api_key
      .key;
    const [listing] = await call('GET', `/marketplace/listings?network_id=${system.networkId}&sort=price_asc&limit=1`, undefined, key);
    const prepared = await call('POST', '/marketplace/prepare-buy', { listing_id: listing.sale_address, amount: 2, network_id: system.networkId }, key);
    const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.network_passphrase) as Transaction;
    tx.sign(buyer);
    const submittedAt = Date.now();
    const bought = await call('POST', '/marketplace/submit-buy', { signed_xdr: tx.toXDR(), network_id: system.networkId }, key);
    const confirmedAt = Date.now(); // submit-buy answers once the transaction is in a closed ledger

    const message = await eventually(
      'the sale on the marketplace topic',
      async () => reader.messages.find((m) => m.headers.ce_type === 'io.dobprotocol.ListingSold.v1' && JSON.parse(m.value).data.buyer === buyer.publicKey()),
      10_000,
      20,
    );
    // From the agent's submit (which includes waiting for the next ledger, 1 s apart here): the strict reading.
    const sinceSubmit = message.receivedAt - submittedAt;
    console.log(`submit-buy sent → analyst has the sale: ${sinceSubmit} ms (submit-buy answered after ${confirmedAt - submittedAt} ms)`);
    expect(sinceSubmit).toBeLessThan(2_000);

    const ce = JSON.parse(message.value) as Json;
    expect(message.key).toBe(listing.pool_address);
    expect(ce).toMatchObject({
      specversion: '1.0',
      type: 'io.dobprotocol.ListingSold.v1',
      source: `stellar:${system.networkId}/${listing.pool_address}`,
      subject: listing.pool_address,
      txhash: bought.transaction_hash,
      data: { pool: listing.pool_address, buyer: buyer.publicKey(), seller: listing.seller_address, shares_sold: '2' },
    });
    // Price as on chain: base units, a decimal string; total = shares × price per share.
    expect(BigInt(ce.data.total_price)).toBe(2n * BigInt(ce.data.price_per_share));
    const stored = (await system.eventStore.readAll({ maxCount: 100_000, types: ['ListingSold'] })).events.find(
      (e) => (e.data as Json).chain.tx_hash === bought.transaction_hash,
    );
    expect(ce.id).toBe(stored!.id);
    expect(message.headers).toMatchObject({ ce_id: stored!.id, ce_type: 'io.dobprotocol.ListingSold.v1' });
  });
});
