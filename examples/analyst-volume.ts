/**
 * What an analyst writes first: live marketplace volume per pool, from the `dob.marketplace.v1` topic, with only
 * kafkajs and the documented message format (docs/kafka.md, docs/kafka.asyncapi.json).
 *   npm run example:analyst            KAFKA_BROKERS (default 127.0.0.1:9092), KAFKA_GROUP_ID (default dob-analyst-volume),
 *                                      KAFKA_TOPIC_PREFIX (default none), FROM_BEGINNING=0 to start at the live end
 * Deduplicates on the CloudEvent id (delivery is at least once), sums `total_price` and `shares_sold` per pool as
 * BigInt base units (money is never a float), and prints the pool's running totals at every sale.
 */
import { Kafka, logLevel } from 'kafkajs';
// kafkajs 2.2.4 re-arms a 1 ms timer per connection for ever (Node 24 warns on each): the fix our relay uses too.
import { fixKafkajsRequestQueue } from '../libs/kafka-relay/src/kafkajs/request-queue-fix';

fixKafkajsRequestQueue();

interface ListingSoldEvent {
  id: string;
  type: string;
  subject: string;
  time: string;
  data: { pool: string; buyer: string; seller: string; shares_sold: string; total_price: string; payment_token: string };
}

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const groupId = process.env.KAFKA_GROUP_ID ?? 'dob-analyst-volume';
const topic = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}dob.marketplace.v1`;
const fromBeginning = process.env.FROM_BEGINNING !== '0';

const volume = new Map<string, { sales: number; shares: bigint; paid: Map<string, bigint> }>();
// A real job keeps this in its state store, bounded by time; an in-memory set suffices for an example.
const seen = new Set<string>();

async function main(): Promise<void> {
  const kafka = new Kafka({ clientId: 'dob-analyst-example', brokers, logLevel: logLevel.WARN });
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning });
  console.log(`reading ${topic} as group ${groupId}${fromBeginning ? ' from the beginning' : ''}; Ctrl-C to stop`);

  await consumer.run({
    eachMessage: async ({ message, partition }) => {
      if (message.headers?.ce_type?.toString() !== 'io.dobprotocol.ListingSold.v1') return; // skip without parsing
      const event = JSON.parse(message.value!.toString()) as ListingSoldEvent;
      if (seen.has(event.id)) return; // a redelivery: already counted
      seen.add(event.id);
      const sale = event.data;
      const pool = volume.get(sale.pool) ?? { sales: 0, shares: 0n, paid: new Map<string, bigint>() };
      pool.sales += 1;
      pool.shares += BigInt(sale.shares_sold);
      pool.paid.set(sale.payment_token, (pool.paid.get(sale.payment_token) ?? 0n) + BigInt(sale.total_price));
      volume.set(sale.pool, pool);
      const paid = [...pool.paid].map(([token, amount]) => `${amount} of ${token.slice(0, 6)}…`).join(', ');
      console.log(
        `${event.time} p${partition} ${sale.pool.slice(0, 8)}…  +${sale.shares_sold} shares for ${sale.total_price} ` +
          `(buyer ${sale.buyer.slice(0, 6)}…) → ${pool.sales} sales, ${pool.shares} shares, ${paid} (base units)`,
      );
    },
  });

  const stop = () => {
    consumer.disconnect().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
