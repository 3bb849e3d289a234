import { Pool, fetch as undiciFetch } from 'undici';
import { idempotentFetch, type RetryBudget } from '../../src/client/index.js';
import { seededRandom } from '../retry-storm/seeded-random.js';
import type { Exchange, RouteName, RunRecord, Scenario } from './run-record.js';

/** SKUs the soak orders; the stock table is seeded with plenty of each. */
export const SOAK_SKUS = ['sku-red-mug', 'sku-blue-mug', 'sku-teapot'] as const;

/** Options of {@link Traffic}. */
export interface TrafficOptions {
  /** `http://127.0.0.1:<port>` of the API. */
  readonly origin: string;
  /** Client actions started per second, on a fixed schedule. */
  readonly ratePerSecond: number;
  readonly durationMs: number;
  readonly seed: number;
  readonly record: RunRecord;
  /** The retry budget shared by every retry-client session, as one service's callers share one. */
  readonly budget: RetryBudget;
}

/** One idempotency key of `POST /payments` and what was sent and answered under it. */
export interface PaymentKey {
  readonly key: string;
  readonly orderId: string;
  readonly amount: number;
  /** The key's own body; a changed-body retry sends another. */
  readonly body: string;
  inFlight: number;
  /** A final answer came (2xx or a 4xx that retrying cannot change). */
  settled: boolean;
  /** The payment id of the first 2xx answer. */
  paymentId?: string;
}

/** One idempotency key of `POST /payments/{id}/refunds`. */
export interface RefundKey {
  readonly key: string;
  readonly paymentId: string;
  readonly body: string;
  inFlight: number;
  settled: boolean;
}

/** Share of client actions per scenario; a scenario with nothing to act on falls back to a new payment. */
const SCENARIO_WEIGHTS: readonly (readonly [Scenario, number])[] = [
  ['new-payment', 28],
  ['concurrent-retry', 8],
  ['retry-after-completion', 10],
  ['retry-after-ambiguous', 6],
  ['changed-body', 4],
  ['refund', 10],
  ['refund-retry', 4],
  ['get', 14],
  ['retry-client', 16],
];

const REQUEST_TIMEOUT_MS = 30_000;
const SETTLE_CONCURRENCY = 16;

/**
 * The soak's clients, driven at a fixed arrival rate over undici: the schedule starts a
 * client action every `1 / rate` seconds whether or not earlier ones were answered (an open
 * loop, so a slow server meets the same load instead of a politely slower one). Actions are
 * what retrying clients do: new payments, retries of earlier keys (while the first is in
 * flight, after completion, after an ambiguous answer, with a changed body), refunds under
 * their own keys, reads, and sessions of the project's own retry client (`idempotentFetch`
 * with a shared `RetryBudget`). After the load, {@link settle} re-sends every key left
 * without a final answer, as its owner would later.
 *
 * The seed fixes the schedule and every draw; which earlier key a retry picks also depends
 * on the answers so far.
 *
 * @example
 * const traffic = new Traffic({ origin, ratePerSecond: 12, durationMs: 120_000, seed: 1, record, budget });
 * await traffic.runLoad();
 * await traffic.settle(60_000);
 */
export class Traffic {
  readonly payments = new Map<string, PaymentKey>();
  readonly refunds = new Map<string, RefundKey>();
  /** Retries the retry client made (first attempts are arrivals). */
  retryClientRetries = 0;
  private readonly pool: Pool;
  private readonly random: () => number;
  private readonly completed: PaymentKey[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private keyCount = 0;

  constructor(private readonly options: TrafficOptions) {
    this.pool = new Pool(options.origin, { connections: 256, pipelining: 1 });
    this.random = seededRandom(options.seed ^ 0x5eed);
  }

  /** Starts client actions on schedule for the run's duration, then waits for every one to end. */
  async runLoad(): Promise<void> {
    const { ratePerSecond, durationMs, record } = this.options;
    const total = Math.floor((durationMs * ratePerSecond) / 1000);
    for (let i = 0; i < total; i++) {
      const dueMs = (i * 1000) / ratePerSecond;
      const waitMs = dueMs - record.now();
      if (waitMs > 0) await sleep(waitMs);
      record.arrivals.push({ dueMs, atMs: record.now() });
      this.track(this.act(this.pickScenario()));
    }
    await Promise.all(this.inFlight);
  }

  /**
   * Warms the service up before the clock starts (DynamoDB Local's JIT, the handlers' first
   * calls): `count` payments, a read and a refund, a few at a time, with no faults. They are
   * left out of the figures but not out of the invariants.
   */
  async warmUp(count: number): Promise<void> {
    for (let i = 0; i < count; i += 2) {
      await Promise.all([0, 1].map(() => this.sendPayment(this.newPaymentKey(), 'warm-up', 'warm-up')));
    }
    const paid = this.completed[0];
    if (paid) {
      await this.send({
        route: 'get-payment',
        scenario: 'warm-up',
        phase: 'warm-up',
        path: `/payments/${encodeURIComponent(paid.paymentId!)}`,
        method: 'GET',
      });
      await this.sendRefund(this.newRefundKey(paid), 'warm-up', 'warm-up');
    }
  }

  /**
   * Re-sends, with its own body, every key whose answers so far were all ambiguous (5xx,
   * 409 in progress, no answer), until each gets a final answer or `timeoutMs` passes.
   * Returns the keys still without one.
   */
  async settle(timeoutMs: number): Promise<string[]> {
    const { record } = this.options;
    const endMs = record.now() + timeoutMs;
    for (;;) {
      await Promise.all(this.inFlight);
      const open = this.openKeys();
      if (open.length === 0 || record.now() >= endMs) return open.map((entry) => entry.key);
      for (let i = 0; i < open.length; i += SETTLE_CONCURRENCY) {
        await Promise.all(
          open
            .slice(i, i + SETTLE_CONCURRENCY)
            .map((entry) =>
              'orderId' in entry
                ? this.sendPayment(entry, 'settle', 'settle')
                : this.sendRefund(entry, 'settle', 'settle'),
            ),
        );
      }
      await sleep(1000);
    }
  }

  /** Closes the HTTP connections. */
  async close(): Promise<void> {
    await this.pool.close();
  }

  private openKeys(): (PaymentKey | RefundKey)[] {
    return [...this.payments.values(), ...this.refunds.values()].filter((entry) => !entry.settled);
  }

  private track(action: Promise<unknown>): void {
    const tracked = action.catch(() => undefined).finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private pickScenario(): Scenario {
    const total = SCENARIO_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
    let draw = this.random() * total;
    for (const [scenario, weight] of SCENARIO_WEIGHTS) {
      draw -= weight;
      if (draw < 0) return scenario;
    }
    return 'new-payment';
  }

  private async act(scenario: Scenario): Promise<void> {
    switch (scenario) {
      case 'concurrent-retry': {
        const inFlight = [...this.payments.values()].filter((entry) => entry.inFlight > 0);
        if (inFlight.length > 0) return void (await this.sendPayment(this.pick(inFlight), scenario));
        // Nothing in flight: a double tap, two requests with one new key at once.
        const entry = this.newPaymentKey();
        await Promise.all([this.sendPayment(entry, scenario), this.sendPayment(entry, scenario)]);
        return;
      }
      case 'retry-after-completion':
        return this.completed.length > 0
          ? void (await this.sendPayment(this.pick(this.completed), scenario))
          : this.act('new-payment');
      case 'retry-after-ambiguous': {
        const ambiguous = [...this.payments.values()].filter((entry) => !entry.settled && entry.inFlight === 0);
        return ambiguous.length > 0
          ? void (await this.sendPayment(this.pick(ambiguous), scenario))
          : this.act('retry-after-completion');
      }
      case 'changed-body':
        return this.completed.length > 0
          ? void (await this.sendPayment(this.pick(this.completed), scenario, 'load', true))
          : this.act('new-payment');
      case 'refund':
        return this.completed.length > 0
          ? void (await this.sendRefund(this.newRefundKey(this.pick(this.completed)), scenario))
          : this.act('new-payment');
      case 'refund-retry':
        return this.refunds.size > 0
          ? void (await this.sendRefund(this.pick([...this.refunds.values()]), scenario))
          : this.act('refund');
      case 'get':
        return this.completed.length > 0
          ? void (await this.getPayment(
              this.random() < 0.9 ? this.pick(this.completed).paymentId! : `pay_unknown${this.keyCount}`,
            ))
          : this.act('new-payment');
      case 'retry-client':
        return this.retryClientPayment(this.newPaymentKey());
      default:
        await this.sendPayment(this.newPaymentKey(), 'new-payment');
    }
  }

  private newPaymentKey(): PaymentKey {
    const n = ++this.keyCount;
    const skus = SOAK_SKUS.filter(() => this.random() < 0.5);
    const items = (skus.length > 0 ? skus : [SOAK_SKUS[n % SOAK_SKUS.length]!]).map((sku) => ({
      sku,
      quantity: 1 + Math.floor(this.random() * 3),
    }));
    const amount = 100 + Math.floor(this.random() * 99_900);
    const orderId = `ord-${this.options.seed}-${n}`;
    const entry: PaymentKey = {
      key: `soak-${this.options.seed}-${n}`,
      orderId,
      amount,
      body: JSON.stringify({ amount, currency: 'EUR', orderId, items }),
      inFlight: 0,
      settled: false,
    };
    this.payments.set(entry.key, entry);
    return entry;
  }

  private newRefundKey(payment: PaymentKey): RefundKey {
    const n = ++this.keyCount;
    const draw = this.random();
    const body =
      draw < 0.35
        ? { amount: payment.amount }
        : draw < 0.65
          ? { amount: Math.max(1, Math.floor(payment.amount / 2)) }
          : draw < 0.85
            ? {}
            : { amount: payment.amount + 1 };
    const entry: RefundKey = {
      key: `soak-${this.options.seed}-r${n}`,
      paymentId: payment.paymentId!,
      body: JSON.stringify(body),
      inFlight: 0,
      settled: false,
    };
    this.refunds.set(entry.key, entry);
    return entry;
  }

  private async sendPayment(
    entry: PaymentKey,
    scenario: Scenario,
    phase: Exchange['phase'] = 'load',
    changedBody = false,
  ): Promise<void> {
    const body = changedBody ? JSON.stringify({ ...JSON.parse(entry.body), amount: entry.amount + 1 }) : entry.body;
    entry.inFlight += 1;
    try {
      const exchange = await this.send({
        route: 'create-payment',
        scenario,
        phase,
        path: '/payments',
        key: entry.key,
        body,
        changedBody,
      });
      this.onPaymentAnswer(entry, exchange);
    } finally {
      entry.inFlight -= 1;
    }
  }

  private async sendRefund(entry: RefundKey, scenario: Scenario, phase: Exchange['phase'] = 'load'): Promise<void> {
    entry.inFlight += 1;
    try {
      const exchange = await this.send({
        route: 'create-refund',
        scenario,
        phase,
        path: `/payments/${encodeURIComponent(entry.paymentId)}/refunds`,
        key: entry.key,
        body: entry.body,
      });
      if (isFinal(exchange)) entry.settled = true;
    } finally {
      entry.inFlight -= 1;
    }
  }

  private async getPayment(paymentId: string): Promise<void> {
    await this.send({
      route: 'get-payment',
      scenario: 'get',
      phase: 'load',
      path: `/payments/${encodeURIComponent(paymentId)}`,
      method: 'GET',
    });
  }

  /** A caller using the project's retry client: one key for every attempt, backoff, the shared budget. */
  private async retryClientPayment(entry: PaymentKey): Promise<void> {
    entry.inFlight += 1;
    try {
      await idempotentFetch(
        `${this.options.origin}/payments`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: entry.body },
        {
          idempotencyKey: entry.key,
          attemptTimeoutMs: REQUEST_TIMEOUT_MS,
          retry: {
            maxAttempts: 5,
            baseDelayMs: 200,
            maxDelayMs: 2_000,
            deadlineMs: 10_000,
            budget: this.options.budget,
            onRetry: () => void (this.retryClientRetries += 1),
          },
          fetch: this.recordingFetch(entry),
        },
      );
    } catch {
      // A network error that outlasted the retries: recorded per attempt, settled later.
    } finally {
      entry.inFlight -= 1;
    }
  }

  /** The retry client's `fetch`: undici over the same pool, recording each attempt. */
  private recordingFetch(entry: PaymentKey): typeof globalThis.fetch {
    return async (url, init) => {
      const { record } = this.options;
      const sentAtMs = record.now();
      let status = 0;
      let text = '';
      let headers: Record<string, string> = {};
      try {
        const response = await undiciFetch(String(url), {
          method: init?.method,
          headers: plainHeaders(new Headers(init?.headers)),
          body: init?.body as string,
          signal: init?.signal,
          dispatcher: this.pool,
        });
        status = response.status;
        headers = plainHeaders(response.headers);
        text = await response.text();
        return new Response(text, { status, headers });
      } finally {
        const exchange = toExchange(
          { route: 'create-payment', scenario: 'retry-client', phase: 'load', key: entry.key },
          sentAtMs,
          record.now() - sentAtMs,
          status,
          text,
        );
        record.exchange(exchange);
        this.onPaymentAnswer(entry, exchange);
      }
    };
  }

  private onPaymentAnswer(entry: PaymentKey, exchange: Exchange): void {
    if (exchange.status >= 200 && exchange.status < 300 && exchange.paymentId && !entry.paymentId) {
      entry.paymentId = exchange.paymentId;
      this.completed.push(entry);
    }
    if (isFinal(exchange)) entry.settled = true;
  }

  private async send(request: {
    route: RouteName;
    scenario: Scenario;
    phase: Exchange['phase'];
    path: string;
    key?: string;
    body?: string;
    method?: string;
    changedBody?: boolean;
  }): Promise<Exchange> {
    const { record } = this.options;
    const sentAtMs = record.now();
    let status = 0;
    let text = '';
    try {
      const response = await this.pool.request({
        path: request.path,
        method: (request.method ?? 'POST') as 'POST' | 'GET',
        headers: { 'content-type': 'application/json', ...(request.key ? { 'idempotency-key': request.key } : {}) },
        body: request.body,
        headersTimeout: REQUEST_TIMEOUT_MS,
        bodyTimeout: REQUEST_TIMEOUT_MS,
      });
      text = await response.body.text();
      status = response.statusCode;
    } catch {
      status = 0;
    }
    const exchange = toExchange(request, sentAtMs, record.now() - sentAtMs, status, text);
    record.exchange(exchange);
    return exchange;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }
}

/** Whether retrying cannot change this answer: a 2xx, or a 4xx other than 408, 429 and 409 in progress. */
function isFinal(exchange: Exchange): boolean {
  if (exchange.changedBody) return false;
  if (exchange.status >= 200 && exchange.status < 300) return true;
  if (exchange.status === 409) return !exchange.problemType?.endsWith('request-in-progress');
  return exchange.status >= 400 && exchange.status < 500 && exchange.status !== 408 && exchange.status !== 429;
}

function toExchange(
  request: { route: RouteName; scenario: Scenario; phase: Exchange['phase']; key?: string; changedBody?: boolean },
  sentAtMs: number,
  latencyMs: number,
  status: number,
  text: string,
): Exchange {
  const body = parseJson(text);
  return {
    sentAtMs,
    latencyMs,
    route: request.route,
    scenario: request.scenario,
    key: request.key,
    status,
    problemType: typeof body?.type === 'string' ? body.type : undefined,
    paymentId: typeof body?.paymentId === 'string' ? body.paymentId : undefined,
    refundId: typeof body?.refundId === 'string' ? body.refundId : undefined,
    changedBody: request.changedBody || undefined,
    phase: request.phase,
  };
}

function plainHeaders(headers: {
  forEach(callback: (value: string, name: string) => void): void;
}): Record<string, string> {
  const plain: Record<string, string> = {};
  headers.forEach((value, name) => (plain[name] = value));
  return plain;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
