import { createHash } from 'node:crypto';

/** A charge request to the payment rail. Amounts are integers in the minor unit. */
export interface ChargeRequest {
  readonly amount: number;
  readonly currency: string;
  /** The rail's own idempotency key: one charge per key, however often it is sent. */
  readonly idempotencyKey: string;
}

/** A refund request to the payment rail. */
export interface RefundRailRequest {
  readonly chargeId: string;
  readonly amount: number;
  readonly idempotencyKey: string;
}

/** The external payment provider, as the handlers see it. */
export interface PaymentRail {
  charge(request: ChargeRequest): Promise<{ chargeId: string }>;
  refund(request: RefundRailRequest): Promise<{ refundId: string }>;
}

/** The rail refused a key that was sent before with other parameters. */
export class RailKeyReusedError extends Error {
  constructor(readonly idempotencyKey: string) {
    super('The payment rail saw this idempotency key with different parameters');
    this.name = 'RailKeyReusedError';
  }
}

/** Options of {@link createFakePaymentRail}. */
export interface FakePaymentRailOptions {
  /**
   * Simulated network latency per call, in milliseconds.
   * @default 0
   */
  readonly latencyMs?: number;
}

/**
 * A stand-in for an external payment provider that honours idempotency keys the way real
 * rails do: the same key returns the same charge, the same key with other parameters is
 * refused. Ids derive from the key, so every Lambda instance answers alike.
 *
 * @example
 * const rail = createFakePaymentRail();
 * await rail.charge({ amount: 1999, currency: 'EUR', idempotencyKey: scope.deriveKey('charge') });
 */
export function createFakePaymentRail(options: FakePaymentRailOptions = {}): PaymentRail & { readonly calls: number } {
  const seen = new Map<string, string>();
  let calls = 0;
  async function once(kind: string, key: string, parameters: unknown): Promise<string> {
    calls += 1;
    if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    const fingerprint = JSON.stringify(parameters);
    const previous = seen.get(`${kind}:${key}`);
    if (previous !== undefined && previous !== fingerprint) throw new RailKeyReusedError(key);
    seen.set(`${kind}:${key}`, fingerprint);
    return createHash('sha256').update(`${kind}:${key}`).digest('hex').slice(0, 24);
  }
  return {
    get calls() {
      return calls;
    },
    async charge({ amount, currency, idempotencyKey }) {
      return { chargeId: `ch_${await once('charge', idempotencyKey, { amount, currency })}` };
    },
    async refund({ chargeId, amount, idempotencyKey }) {
      return { refundId: `re_${await once('refund', idempotencyKey, { chargeId, amount })}` };
    },
  };
}
