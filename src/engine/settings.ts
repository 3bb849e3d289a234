import type { Journal } from '../journal/index.js';
import type { LocalCache } from './local-cache.js';
import type { AttemptScope, IdempotencyScope } from './scope.js';

/** What a `recover` hook decides for a record whose effect may have happened. */
export type RecoveryDecision = { outcome: 'completed'; response: unknown } | { outcome: 'rerun' } | { outcome: 'review' };

/** Settings shared by every entry point, resolved from its options. */
export interface EngineSettings {
  readonly journal: Journal;
  readonly ttlSeconds: number;
  readonly leaseMs?: number;
  readonly inProgress: 'reject' | 'wait';
  readonly waitMs: number;
  readonly retryAfterSeconds: number;
  readonly recover?: (scope: IdempotencyScope) => Promise<RecoveryDecision>;
  /** What an entry point stores of a response a `recover` hook hands back (HTTP keeps only allow-listed headers). */
  readonly storedFormOf?: (response: unknown) => unknown;
  readonly localCache?: LocalCache;
  /** `'staged-only'`: the key is claimed by the transaction that commits the handler's writes (see `GuardOptions.effects`). */
  readonly effects: 'any' | 'staged-only';
  readonly clock: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** One attempt's identity. */
export interface AttemptRequest {
  readonly pk: string;
  readonly key: string;
  readonly scope: string;
  readonly fingerprint: string;
  /** The Lambda's remaining time now, when there is a context (read again by each heartbeat). */
  readonly remainingTimeMs?: () => number;
}

/** What an attempt meets before its handler runs. */
export type Admission =
  | { readonly kind: 'replay'; readonly response: unknown }
  | { readonly kind: 'run'; readonly scope: AttemptScope };

/** What became of an attempt that ran its handler. */
export type Settlement =
  | { readonly kind: 'stored'; readonly response: unknown }
  | { readonly kind: 'superseded'; readonly response: unknown }
  | { readonly kind: 'not-stored'; readonly response: unknown };
