import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { KeyChangeSignal } from '../keys/key-change-signal.port';

/**
 * KeyChangeSignal on the Redis the rate limiter uses: the epoch is the limiter's `epochKey` (RedisRateLimiter reads
 * it in every decision's script), and each announcement also goes out on pub/sub so idle instances empty their
 * caches before their next request. SET and PUBLISH run as one script: one round trip, and a listener never hears
 * an epoch that is not stored yet.
 */
export class RedisKeyChangeSignal implements KeyChangeSignal {
  private readonly channel: string;

  constructor(
    private readonly redis: Redis,
    private readonly epochKey: string,
  ) {
    this.channel = `${epochKey}:changed`;
  }

  async announce(): Promise<void> {
    const epoch = randomBytes(12).toString('base64url');
    await this.redis.eval("redis.call('SET', KEYS[1], ARGV[1]); redis.call('PUBLISH', ARGV[2], ARGV[1]); return 1", 1, this.epochKey, epoch, this.channel);
  }

  async listen(onEpoch: (epoch: string | null) => void): Promise<() => Promise<void>> {
    // A subscribed connection can do nothing else, hence a duplicate. On every (re)connect after the first, messages
    // may have been lost while it was down: report `null` so the cache forgets everything.
    const subscriber = this.redis.duplicate({ maxRetriesPerRequest: null });
    let subscribedOnce = false;
    subscriber.on('ready', () => {
      if (subscribedOnce) onEpoch(null);
    });
    subscriber.on('error', () => undefined); // reconnects on its own; the epoch check keeps the cache correct meanwhile
    subscriber.on('message', (channel: string, epoch: string) => {
      if (channel === this.channel) onEpoch(epoch);
    });
    await subscriber.subscribe(this.channel);
    subscribedOnce = true;
    return async () => {
      await subscriber.quit().catch(() => subscriber.disconnect());
    };
  }
}
