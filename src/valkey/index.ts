export { ValkeyJournal, MEMORY_MARGIN_MS, type ValkeyJournalOptions } from './valkey-journal.js';
export type { ValkeyCacheClient, ValkeyClient } from './valkey-client.js';
export { ValkeyOutcomeCache, DEFAULT_MAX_ENTRY_BYTES, type ValkeyOutcomeCacheOptions } from './valkey-outcome-cache.js';
export type { EvictionPolicyReport } from './eviction-policy.js';
export { LUA_SCRIPTS, type LuaScript, type ScriptName } from './lua-scripts.js';
