export { ValkeyJournal, MEMORY_MARGIN_MS, type ValkeyJournalOptions } from './valkey-journal.js';
export type { ValkeyClient } from './valkey-client.js';
export type { EvictionPolicyReport } from './eviction-policy.js';
export { LUA_SCRIPTS, type LuaScript, type ScriptName } from './lua-scripts.js';
