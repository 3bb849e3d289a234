import { createHash } from 'node:crypto';
import { ClaimAttribute as C, RecordAttribute as A, RecordStatus } from '../journal/index.js';

/**
 * The Lua scripts of the Valkey journal: one per state change, each run atomically on the one key
 * it is given (`KEYS[1]`, a record or a claim; no script reads or writes any other key, so each
 * runs in cluster mode on the node owning that key). Each checks the condition the DynamoDB
 * journal puts on the same write (`JournalCondition`, by the same name, in the comments), writes,
 * and answers with what happened: an outcome word first, then (where the caller needs it) the
 * key's fields as `HGETALL` returns them. The journal reads nothing else as success.
 *
 * Every script takes `ARGV[1]` = now (epoch ms, the journal's clock, never the server's
 * `TIME`) and `ARGV[2]` = the memory margin (ms): after a write the key's server TTL is set
 * `margin` past the later of `expiresAt` and `leaseUntil`, only to reclaim memory (the guard reads
 * `expiresAt`), and removed (`PERSIST`) while the record has no `expiresAt` (`UNKNOWN`, effect begun).
 */

/**
 * The last two arguments of every call: this marker, then how many arguments come before it. A
 * client that drops or adds an argument (an ignored option) makes the script refuse the call
 * before it reads anything, instead of writing what it was not asked to.
 */
export const END_MARKER = 'idemkit-end';

/** Shared helpers: read a hash, the guard's predicates, the reply, the memory TTL. */
const PRELUDE = `
local key = KEYS[1]
local argc = #ARGV - 2
if #KEYS ~= 1 or argc < 2 or ARGV[argc + 1] ~= '${END_MARKER}' or tonumber(ARGV[argc + 2]) ~= argc then
  return redis.error_reply('idemkit: arguments missing or added on the way')
end
local nowMs = tonumber(ARGV[1])
local marginMs = tonumber(ARGV[2])
if nowMs == nil or marginMs == nil then return redis.error_reply('idemkit: bad arguments') end
local function load()
  local flat = redis.call('HGETALL', key)
  if #flat == 0 then return nil end
  local h = {}
  for i = 1, #flat, 2 do h[flat[i]] = flat[i + 1] end
  return h
end
local function reply(outcome)
  local flat = redis.call('HGETALL', key)
  table.insert(flat, 1, outcome)
  return flat
end
local function pastExpiry(h)
  local e = tonumber(h['${A.expiresAt}'])
  return e ~= nil and e <= math.floor(nowMs / 1000)
end
local function leaseEnded(h)
  local u = tonumber(h['${A.leaseUntil}'])
  return u ~= nil and u < nowMs
end
local function inProgress(h) return h['${A.status}'] == '${RecordStatus.inProgress}' end
local function claimable(h)
  return h == nil or (pastExpiry(h) and (h['${A.status}'] == '${RecordStatus.completed}' or (inProgress(h) and leaseEnded(h))))
end
local function settle()
  local e = tonumber(redis.call('HGET', key, '${A.expiresAt}'))
  if e == nil then redis.call('PERSIST', key) return end
  local until_ = tonumber(redis.call('HGET', key, '${A.leaseUntil}')) or 0
  local keepMs = math.max(e * 1000, until_) - nowMs + marginMs
  redis.call('PEXPIRE', key, string.format('%d', math.max(keepMs, marginMs)))
end
`;

/** The fields after the fixed arguments, as name/value pairs, for `HSET`. */
const PAIRS_FROM = (first: number) => `
local pairs_ = {}
for i = ${first}, argc do pairs_[#pairs_ + 1] = ARGV[i] end
if #pairs_ == 0 or #pairs_ % 2 ~= 0 then return redis.error_reply('idemkit: bad arguments') end
`;

const SCRIPTS = {
  /** `claimable`: ARGV[3..] the reservation's fields. Replies RESERVED + replacedExpired (0/1), or EXISTS + the record. */
  reserve: `${PAIRS_FROM(3)}
local h = load()
if not claimable(h) then return reply('EXISTS') end
redis.call('DEL', key)
redis.call('HSET', key, unpack(pairs_))
settle()
return {'RESERVED', h == nil and '0' or '1'}`,

  /**
   * `takeOver`: ARGV[3] the token read, [4] the new token, [5] leaseUntil, [6] the durable execution ('' for none).
   * Replies TAKEN + the record, or LOST + the record (none when absent).
   */
  takeOver: `
local h = load()
if h == nil or h['${A.leaseToken}'] ~= ARGV[3] or not ((inProgress(h) and leaseEnded(h)) or h['${A.status}'] == '${RecordStatus.unknown}') then return reply('LOST') end
redis.call('HSET', key, '${A.leaseToken}', ARGV[4], '${A.leaseUntil}', ARGV[5], '${A.updatedAt}', ARGV[1], '${A.status}', '${RecordStatus.inProgress}')
redis.call('HINCRBY', key, '${A.attempt}', 1)
if ARGV[6] == '' then redis.call('HDEL', key, '${A.durableExecution}') else redis.call('HSET', key, '${A.durableExecution}', ARGV[6]) end
settle()
return reply('TAKEN')`,

  /** `leaseHeld`: ARGV[3] the token, ARGV[4..] fields to set. Replies OK, or LOST + the record. */
  leaseHeldSet: `${PAIRS_FROM(4)}
local h = load()
if h == nil or h['${A.leaseToken}'] ~= ARGV[3] then return reply('LOST') end
redis.call('HSET', key, unpack(pairs_))
settle()
return {'OK'}`,

  /**
   * `leaseHeld`, and the record stops expiring: ARGV[3] the token, ARGV[4..] fields to set (`beginEffect`,
   * `markUnknown`). Replies OK, or LOST + the record.
   */
  leaseHeldPersist: `${PAIRS_FROM(4)}
local h = load()
if h == nil or h['${A.leaseToken}'] ~= ARGV[3] then return reply('LOST') end
redis.call('HSET', key, unpack(pairs_))
redis.call('HDEL', key, '${A.expiresAt}')
settle()
return {'OK'}`,

  /**
   * `leaseHeldNotCompleted`: ARGV[3] the token, ARGV[4..] the completion's fields. Replies COMPLETED; OWN when the
   * record is already completed under this token (a resend of a completion that landed: nothing written); or LOST +
   * the record.
   */
  complete: `${PAIRS_FROM(4)}
local h = load()
if h ~= nil and h['${A.leaseToken}'] == ARGV[3] and h['${A.status}'] == '${RecordStatus.completed}' then return {'OWN'} end
if h == nil or h['${A.leaseToken}'] ~= ARGV[3] then return reply('LOST') end
redis.call('HSET', key, unpack(pairs_))
settle()
return {'COMPLETED'}`,

  /** `abandonedLease`: ARGV[3] the token read. Replies MARKED + the record, or LOST + the record. */
  markAbandonedUnknown: `
local h = load()
if h == nil or h['${A.leaseToken}'] ~= ARGV[3] or not inProgress(h) or not leaseEnded(h) then return reply('LOST') end
redis.call('HSET', key, '${A.status}', '${RecordStatus.unknown}', '${A.updatedAt}', ARGV[1])
redis.call('HDEL', key, '${A.expiresAt}')
settle()
return reply('MARKED')`,

  /** `leaseHeldNotCompleted`, then the record is deleted: ARGV[3] the token. Replies RELEASED, or LOST + the record. */
  release: `
local h = load()
if h == nil or h['${A.leaseToken}'] ~= ARGV[3] or h['${A.status}'] == '${RecordStatus.completed}' then return reply('LOST') end
redis.call('DEL', key)
return {'RELEASED'}`,

  /**
   * `resolvable`: ARGV[3] 'released' or 'completed', ARGV[4..] the resolution's fields. Replies RESOLVED, or REFUSED +
   * the record.
   */
  resolve: `
local h = load()
if h == nil or not (h['${A.status}'] == '${RecordStatus.unknown}' or (inProgress(h) and leaseEnded(h))) then return reply('REFUSED') end
if ARGV[3] == 'released' then redis.call('DEL', key) return {'RESOLVED'} end
if ARGV[3] ~= 'completed' then return redis.error_reply('idemkit: bad arguments') end
${PAIRS_FROM(4)}
redis.call('HSET', key, unpack(pairs_))
settle()
return {'RESOLVED'}`,

  /** A read. Replies RECORD + the fields (none when absent). */
  get: `return reply('RECORD')`,

  /**
   * Fencing the record of a stale hold (`holdAbandoned`): ARGV[3] the stale token, ARGV[4] a fresh one. Replies GONE
   * (absent, or held under another token with no effect begun), FENCED (its token replaced now), or KEEP.
   */
  fenceHolder: `
local h = load()
if h == nil then return {'GONE'} end
if h['${A.effectStarted}'] == 'true' or h['${A.status}'] == '${RecordStatus.unknown}' then return {'KEEP'} end
if h['${A.leaseToken}'] ~= ARGV[3] then return {'GONE'} end
if not (inProgress(h) and leaseEnded(h) and h['${A.effectStarted}'] == 'false') then return {'KEEP'} end
redis.call('HSET', key, '${A.leaseToken}', ARGV[4], '${A.updatedAt}', ARGV[1])
settle()
return {'FENCED'}`,

  /**
   * `uniqueHoldable`: ARGV[3] the owner, [4] its createdAt, [5..] the hold's fields. A pinned hold taken back by its
   * own operation stays pinned. Replies HELD, or CONFLICT + the claim.
   */
  holdUnique: `${PAIRS_FROM(5)}
local h = load()
if h ~= nil and not (h['${C.claimedBy}'] == ARGV[3] and h['${C.ownerCreatedAt}'] == ARGV[4] and h['${C.holdToken}'] ~= nil) then return reply('CONFLICT') end
local pinned = h ~= nil and h['${C.pinned}'] ~= nil
redis.call('DEL', key)
redis.call('HSET', key, unpack(pairs_))
if pinned then redis.call('HSET', key, '${C.pinned}', 'true') end
return {'HELD'}`,

  /** `uniqueTakeable`: ARGV[3] the stale hold token, [4..] the hold's fields. Replies HELD, or CONFLICT + the claim. */
  takeUnique: `${PAIRS_FROM(4)}
local h = load()
if h == nil or h['${C.holdToken}'] ~= ARGV[3] or h['${C.pinned}'] ~= nil then return reply('CONFLICT') end
redis.call('DEL', key)
redis.call('HSET', key, unpack(pairs_))
return {'HELD'}`,

  /**
   * `uniqueHeldBy`: ARGV[3] the hold token, ARGV[4] what to do: 'pin', 'permanent' (drop the token and the pin) or
   * 'letGo' (delete). Replies DONE, or CONFLICT + the claim.
   */
  heldClaim: `
local h = load()
if h == nil or h['${C.holdToken}'] ~= ARGV[3] then return reply('CONFLICT') end
if ARGV[4] == 'pin' then redis.call('HSET', key, '${C.pinned}', 'true')
elseif ARGV[4] == 'permanent' then redis.call('HDEL', key, '${C.holdToken}', '${C.pinned}')
elseif ARGV[4] == 'letGo' then redis.call('DEL', key)
else return redis.error_reply('idemkit: bad arguments') end
return {'DONE'}`,
} as const;

/** The name of one of the journal's scripts. */
export type ScriptName = keyof typeof SCRIPTS;

/** A script's source and the SHA-1 `EVALSHA` names it by. */
export interface LuaScript {
  readonly name: ScriptName;
  readonly source: string;
  readonly sha1: string;
}

/** Every script, with the prelude, by name. */
export const LUA_SCRIPTS: { readonly [N in ScriptName]: LuaScript } = Object.freeze(
  Object.fromEntries(
    (Object.keys(SCRIPTS) as ScriptName[]).map((name) => {
      const source = `-- idemkit ${name}\n${PRELUDE}\n${SCRIPTS[name]}`;
      return [name, { name, source, sha1: createHash('sha1').update(source).digest('hex') }];
    }),
  ) as { [N in ScriptName]: LuaScript },
);
