/**
 * The AWS SDK's standard retry strategy as it treats a throttle, in the version this project
 * pins (@smithy/core's `StandardRetryStrategy`, `Retry.v2026`; `@aws-sdk/client-dynamodb` sets
 * `maxAttempts` to 4): a throttled call is sent again up to `maxAttempts − 1` times after
 * `random · min(1_000 · 2^retries, 20_000)` ms, each retry taking 5 tokens from the client's
 * retry quota of 500; a successful call puts back what its retries took (1 if none).
 * Simulated, not run: the SDK sleeps on real timers and draws from `Math.random`.
 */
export const SDK_THROTTLE_RETRIES = Object.freeze({
  maxAttempts: 4,
  throttleBaseDelayMs: 1_000,
  maxDelayMs: 20_000,
  quotaTokens: 500,
  throttleRetryCostTokens: 5,
  noRetryRefundTokens: 1,
});

/**
 * One `DynamoDBClient`'s retry state: a container has one client, shared by its callers, and one
 * retry quota shared by its calls, whatever attempts each call is given.
 *
 * @example
 * const sdk = new SdkRetries(random); sdk.delayBeforeRetryMs(1, 4) // undefined when out of attempts or quota
 */
export class SdkRetries {
  #quotaTokens: number = SDK_THROTTLE_RETRIES.quotaTokens;

  constructor(private readonly random: () => number) {}

  /**
   * The wait before resending a call whose `attempt`-th send (1-based) was throttled, having
   * taken the retry's tokens; undefined when the SDK gives up and the throttle surfaces.
   *
   * @param maxAttempts attempts of this call, the first included (the SDK's 4, or fewer for a
   *   journal call whose throttled attempts are bounded)
   */
  delayBeforeRetryMs(attempt: number, maxAttempts: number): number | undefined {
    if (attempt >= maxAttempts || this.#quotaTokens < SDK_THROTTLE_RETRIES.throttleRetryCostTokens) {
      return undefined;
    }
    this.#quotaTokens -= SDK_THROTTLE_RETRIES.throttleRetryCostTokens;
    const capMs = Math.min(
      SDK_THROTTLE_RETRIES.throttleBaseDelayMs * 2 ** (attempt - 1),
      SDK_THROTTLE_RETRIES.maxDelayMs,
    );
    return Math.floor(this.random() * capMs);
  }

  /** A call answered without a throttle after `attempts` sends gives its retries' tokens back. */
  recordSuccess(attempts: number): void {
    const refund =
      attempts > 1 ? SDK_THROTTLE_RETRIES.throttleRetryCostTokens : SDK_THROTTLE_RETRIES.noRetryRefundTokens;
    this.#quotaTokens = Math.min(SDK_THROTTLE_RETRIES.quotaTokens, this.#quotaTokens + refund);
  }
}
