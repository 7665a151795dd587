/**
 * The sliding-window log as one atomic Redis script (one round trip per request; scripts run atomically, so
 * concurrent API instances cannot both take the last slot). Per the Redis EVAL docs, scripts may call TIME since
 * Redis 5 (effects replication), so by default every instance shares the Redis server's clock.
 *
 * KEYS[1] = the bucket's sorted set (score = admission time in ms)
 * KEYS[2] = the shared epoch (a string that changes whenever cached key state changes, docs/auth.md "Key cache"),
 *           read in the same round trip; when missing (a fresh or flushed Redis) it is set to ARGV[4], a value no
 *           instance has seen, so every cache built on an older epoch is dropped
 * ARGV[1] = now in ms, or "" to use the Redis server clock
 * ARGV[2] = window ms, ARGV[3] = capacity (rpm + burst), ARGV[4] = unique member for this request
 * Returns {allowed (0|1), count after the attempt, now, oldest score, newest score, epoch}
 */
export const SLIDING_WINDOW_LUA = `
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - window))
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < cap then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  count = count + 1
  allowed = 1
end
local oldest = now
local newest = now
if count > 0 then
  oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  newest = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
end
redis.call('PEXPIRE', KEYS[1], window + 1000)
local epoch = redis.call('GET', KEYS[2])
if not epoch then
  epoch = ARGV[4]
  redis.call('SET', KEYS[2], epoch)
end
return {allowed, count, now, oldest, newest, epoch}
`;
