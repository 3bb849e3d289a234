/**
 * The server's eviction policy, as `INFO memory` reports it. Under any policy but `noeviction` a
 * server short of memory may delete a record before its `expiresAt`: a completed one then runs
 * again on its next retry, an in-progress one may be reserved again while its attempt still runs.
 */
export interface EvictionPolicyReport {
  /** `maxmemory_policy` (`noeviction`, `allkeys-lru`, ...), or undefined when the server did not say. */
  readonly policy: string | undefined;
  /** True unless the policy is known to be `noeviction`. */
  readonly mayEvict: boolean;
}

/** The report of an `INFO memory` reply (undefined policy when the reply does not name one). */
export function evictionPolicyOf(info: unknown): EvictionPolicyReport {
  const match = typeof info === 'string' ? /^maxmemory_policy:(\S+)\s*$/m.exec(info) : null;
  const policy = match?.[1];
  return { policy, mayEvict: policy !== 'noeviction' };
}

/** The warning logged for a policy that may evict records. */
export function evictionWarning(report: EvictionPolicyReport): string {
  const what =
    report.policy === undefined ? 'an eviction policy the server did not report' : `maxmemory_policy ${report.policy}`;
  return (
    `ValkeyJournal: the server runs with ${what}: under memory pressure it may delete idempotency records before ` +
    `their expiry, and a deleted record's request runs again. Set maxmemory-policy noeviction (see docs/valkey.md).`
  );
}
