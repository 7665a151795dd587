/**
 * The sliding-window log as atomic Redis scripts (scripts run atomically, so concurrent API instances cannot both
 * take the last slot). Per the Redis EVAL docs, scripts may call TIME since Redis 5 (effects replication), so by
 * default every instance shares the Redis server's clock. Why grants keep the cap exact: admission-grants.ts.
 *
 * ADMIT — one admission, or a grant of admissions an instance hands out locally for a short lifetime.
 * KEYS[1] = the bucket's sorted set (score = admission time in ms; a grant's members carry its expiry, a future time)
 * ARGV[1] = now in ms, or "" to use the Redis server clock
 * ARGV[2] = window ms, ARGV[3] = capacity (rpm + burst)
 * ARGV[4] = member name for one admission; a grant's members are ARGV[4] .. '.' .. i for i = 1 … granted
 * ARGV[5] = admissions wanted as a grant (0: one admission, today's exact rule), ARGV[6] = grant lifetime ms,
 * ARGV[7] = margin: a grant never takes the last `margin` slots of the window (those go one admission at a time)
 * ARGV[8] = "grant-only" for a refill ahead (no request of its own waits on it): no grant means no admission at all,
 *           where a request's grant request falls back to admitting its sender alone
 * Every member with score ≥ now − window counts, future scores (live grants) included.
 * Returns {allowed (0|1), granted, count after the attempt, now, oldest score, newest score}. When granted > 0 the
 * first granted member is the caller's own admission; when granted = 0 the caller was admitted alone iff allowed.
 */
export const ADMIT_LUA = `
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local wanted = tonumber(ARGV[5])
local lifetime = tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - window))
local count = redis.call('ZCARD', KEYS[1])
local granted = 0
if wanted > 0 then
  granted = math.min(wanted, cap - tonumber(ARGV[7]) - count)
end
local allowed = 0
if granted > 0 then
  local args = {}
  for i = 1, granted do
    args[2 * i - 1] = now + lifetime
    args[2 * i] = ARGV[4] .. '.' .. i
  end
  redis.call('ZADD', KEYS[1], unpack(args))
  count = count + granted
  allowed = 1
else
  granted = 0
  if count < cap and ARGV[8] ~= 'grant-only' then
    redis.call('ZADD', KEYS[1], now, ARGV[4])
    count = count + 1
    allowed = 1
  end
end
local oldest = now
local newest = now
if count > 0 then
  oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  newest = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
end
redis.call('PEXPIRE', KEYS[1], window + lifetime + 1000)
return {allowed, granted, count, now, oldest, newest}
`;

/**
 * RETURN — an instance is done with a grant (it expired, was used up, or the instance closes): each used member is
 * restamped from the grant's expiry down to when it was used (grant time + ms from sending the grant request to the
 * local admission: never earlier than the admission), the unused ones are removed.
 * KEYS[1] = the bucket's sorted set; ARGV[1] = the grant's member base, ARGV[2] = the grant's server time,
 * ARGV[3] = members granted, ARGV[4…] = for each used member in order, its ms since the grant request was sent.
 * XX: a member that already left the window is not brought back.
 */
export const RETURN_LUA = `
local base = ARGV[1]
local at = tonumber(ARGV[2])
local granted = tonumber(ARGV[3])
local used = #ARGV - 3
if used > 0 then
  local args = {}
  for i = 1, used do
    args[2 * i - 1] = at + tonumber(ARGV[3 + i])
    args[2 * i] = base .. '.' .. i
  end
  redis.call('ZADD', KEYS[1], 'XX', unpack(args))
end
if granted > used then
  local members = {}
  for i = used + 1, granted do
    members[#members + 1] = base .. '.' .. i
  end
  redis.call('ZREM', KEYS[1], unpack(members))
end
return used
`;
