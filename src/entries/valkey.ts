/**
 * `idemkit/valkey`: the journal on Valkey or Redis OSS (ElastiCache, MemoryDB), over an
 * `iovalkey` or `ioredis` client or cluster (optional peers; typed by shape, so neither is needed
 * to compile) or an adapter of any other client. An entry of its own, so a handler on DynamoDB
 * never bundles it. And `ValkeyOutcomeCache`, completed outcomes shared by every container (with
 * either journal). See docs/valkey.md.
 *
 * @packageDocumentation
 */
export {
  ValkeyJournal,
  MEMORY_MARGIN_MS,
  type ValkeyJournalOptions,
  type ValkeyClient,
  type EvictionPolicyReport,
  ValkeyOutcomeCache,
  DEFAULT_MAX_ENTRY_BYTES,
  type ValkeyOutcomeCacheOptions,
  type ValkeyCacheClient,
} from '../valkey/index.js';
export { JournalFeatureUnsupportedError } from '../core/index.js';
