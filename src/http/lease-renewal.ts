import { LeaseLostError } from '../core/index.js';
import type { IdempotencyScope } from '../engine/index.js';

/**
 * Keeps an attempt's lease alive while its handler runs where nothing bounds it (a server, a
 * container): one heartbeat every `intervalMs`, until {@link stop}. Under Lambda the lease
 * already covers the invocation's deadline and no renewal runs.
 */
export class LeaseRenewal {
  private readonly timer: ReturnType<typeof setInterval>;
  private inFlight: Promise<void> | undefined;
  private stopped = false;

  private constructor(
    private readonly scope: Pick<IdempotencyScope, 'heartbeat'>,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => this.beat(), intervalMs);
    // A renewal never keeps a process alive on its own: the request it serves does.
    this.timer.unref?.();
  }

  /**
   * Starts renewing `scope`'s lease every `intervalMs`.
   *
   * @example const renewal = LeaseRenewal.start(scope, leaseMs / 3); try { await run() } finally { await renewal.stop() }
   */
  static start(scope: Pick<IdempotencyScope, 'heartbeat'>, intervalMs: number): LeaseRenewal {
    return new LeaseRenewal(scope, intervalMs);
  }

  /** Stops renewing, and waits for a heartbeat in flight, so none lands after the outcome is written. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.inFlight;
  }

  private beat(): void {
    if (this.stopped || this.inFlight) return;
    this.inFlight = this.scope.heartbeat().then(
      () => {
        this.inFlight = undefined;
      },
      (error: unknown) => {
        this.inFlight = undefined;
        // Taken over: the attempt learns it when it settles. Any other failure is tried again at the next beat,
        // while the lease still runs.
        if (error instanceof LeaseLostError) this.stopped = true;
      },
    );
  }
}
