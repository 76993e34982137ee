/** The Lua scripts of `RedisQuotaStore` (quota.ts): each runs atomically in Redis. */

/**
 * KEYS[1] counter of used units; ARGV quota, units, keep-until (ms since epoch).
 * Returns {1, remaining} when taken, {0, remaining} when refused (the increment is rolled back), and, with the reset
 * guard on (ARGV[4] not empty), {-1, detected-at ms} while an emptied Redis is being refused.
 */
export const CONSUME_SCRIPT = `
if ARGV[4] ~= '' then
  -- Reset guard (an emptied Redis must not grant quota again): KEYS[2] sentinel, KEYS[3] reset-detected-at;
  -- ARGV[4] armed, [5] now ms, [6] longest receipt lifetime ms, [7] this process's epoch.
  local missing = redis.call('EXISTS', KEYS[2]) == 0
  local detected = redis.call('EXISTS', KEYS[3]) == 1
  if detected or (missing and ARGV[4] == '1') then
    redis.call('SET', KEYS[3], ARGV[5], 'NX', 'PX', tonumber(ARGV[6]) * 2)
    local since = tonumber(redis.call('GET', KEYS[3]))
    if tonumber(ARGV[5]) - since < tonumber(ARGV[6]) then return {-1, since} end
    redis.call('DEL', KEYS[3])
    missing = true
  end
  if missing then redis.call('SET', KEYS[2], ARGV[7]) end
end
local quota = tonumber(ARGV[1])
local units = tonumber(ARGV[2])
local used = redis.call('INCRBY', KEYS[1], units)
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
if used > quota then
  used = redis.call('DECRBY', KEYS[1], units)
  local left = quota - used
  if left < 0 then left = 0 end
  return {0, left}
end
return {1, quota - used}
`;

/**
 * KEYS[1] counter, KEYS[2] this refund's mark; ARGV units, refund id. Decrements without going below zero; missing
 * counters stay missing. The mark makes a refund idempotent: one sent again after a lost reply (Redis
 * died mid-command) is not applied twice, so a retried refund can never over-grant.
 */
export const REFUND_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 1 then ttl = 60000 end
if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ttl) then return -2 end
local used = redis.call('DECRBY', KEYS[1], ARGV[1])
if used < 0 then
  redis.call('SET', KEYS[1], 0, 'KEEPTTL')
  used = 0
end
return used
`;
