import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { runCli } from '../../src/cli/index.js';
import { PaymentsEventType, ORDER_EVENTS_CONSUMER } from '../../src/handlers/service-config.js';
import { RecordStatus } from '../../src/index.js';
import { createHash } from 'node:crypto';
import type { Exchange } from './run-record.js';
import { keyScopeOf, RecordPrefix, messagePk } from '../../src/entries/journal.js';

/** The invariants the run is judged by, in report order. */
export const INVARIANTS = [
  'one payment per key that got a 2xx',
  'every 2xx carries its payment',
  'refunds never exceed the amount',
  'stock reserved once per order event',
  'no record IN_PROGRESS past its lease',
  'UNKNOWN only where an effect began and did not commit',
  'every record left behind listed by idemkit stuck',
  'every operation got a final answer',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

/** One broken promise, with what shows it. */
export interface Violation {
  readonly invariant: Invariant;
  readonly detail: string;
}

/** What the checks read: the tables themselves, and what the clients were answered. */
export interface InvariantInput {
  readonly doc: DynamoDBDocumentClient;
  readonly tables: { readonly journal: string; readonly payments: string; readonly stock: string };
  /** The DynamoDB endpoint, for `idemkit stuck`. */
  readonly endpoint: string;
  readonly exchanges: readonly Exchange[];
  /** orderId of each payment key (the body of a key carries its own orderId). */
  readonly orderIdOfKey: ReadonlyMap<string, string>;
  /** Stock each SKU was seeded with. */
  readonly initialStock: ReadonlyMap<string, number>;
  /** `req#…` keys of requests whose effect began and did not commit (killed after `beginEffect`, or the commit refused). */
  readonly effectNotCommitted: ReadonlyMap<string, string>;
  /**
   * `<operation or consumer> <idempotency_key_hash>` of attempts whose completion write failed
   * after their handler ran, with nothing staged: the guard left the record to its lease.
   */
  readonly completionFailures: ReadonlySet<string>;
  /** Keys the clients never got a final answer for. */
  readonly unsettledKeys: readonly string[];
  /** Now, in epoch ms. */
  readonly nowEpochMs: number;
}

/** What was checked and what broke. */
export interface InvariantResult {
  readonly violations: readonly Violation[];
  /** How many things each invariant looked at. */
  readonly checked: ReadonlyMap<Invariant, number>;
  /** Records left `UNKNOWN`, by why their effect did not commit (all of them must be allowed and listed). */
  readonly unknownRecords: ReadonlyMap<string, number>;
  /** Records `IN_PROGRESS` past their lease because their completion write failed with nothing staged (allowed, listed). */
  readonly abandonedAfterCompletionFailure: readonly string[];
}

type Item = Record<string, unknown>;

/**
 * Checks the run's invariants against the tables (after the queues drained) and the answers
 * the clients got:
 * - one payment per key that ever got a 2xx, and every 2xx (first answer or replay) carries
 *   that payment's id; no payment exists without a key that was answered 2xx with it;
 * - every 2xx refund carries the payment's one refund, and no refund exceeds its payment;
 * - stock: each `order.confirmed` outbox event was dispatched and consumed exactly once (its
 *   inbox record completed), and each SKU's stock is the seeded amount minus those events'
 *   quantities — a double reservation or a missed one shows in the sum;
 * - no request or message record `IN_PROGRESS` past its lease, except where the guard logged
 *   that the completion write failed after the handler ran with nothing staged (DESIGN rule
 *   5: the outcome is answered and the record left to its lease; a queue message so answered
 *   is deleted, so no redelivery comes to take the lease over);
 * - `UNKNOWN` records only under keys whose effect began and did not commit (the request was
 *   killed after `beginEffect`, or its commit was refused after it), each listed by the
 *   operator CLI's `idemkit stuck`, as is every record left `IN_PROGRESS` for the reason above;
 * - every key the clients sent got a final answer (after the owners' later retries).
 *
 * @example const { violations } = await checkInvariants(input); // [] when the run held
 */
export async function checkInvariants(input: InvariantInput): Promise<InvariantResult> {
  const violations: Violation[] = [];
  const checked = new Map<Invariant, number>();
  const fail = (invariant: Invariant, detail: string) => violations.push({ invariant, detail });
  const count = (invariant: Invariant, n: number) => checked.set(invariant, (checked.get(invariant) ?? 0) + n);

  const [journal, payments, stock] = await Promise.all([
    scanAll(input.doc, input.tables.journal),
    scanAll(input.doc, input.tables.payments),
    scanAll(input.doc, input.tables.stock),
  ]);
  checkPayments(input, payments, fail, count);
  checkRefunds(input, payments, fail, count);
  checkStock(input, journal, stock, payments, fail, count);
  const { unknownRecords, abandonedAfterCompletionFailure } = await checkRecords(input, journal, fail, count);
  count(
    'every operation got a final answer',
    new Set(input.exchanges.map((exchange) => exchange.key).filter(Boolean)).size,
  );
  for (const key of input.unsettledKeys)
    fail('every operation got a final answer', `key ${key} never got a final answer`);
  return { violations, checked, unknownRecords, abandonedAfterCompletionFailure };
}

type Fail = (invariant: Invariant, detail: string) => void;
type Count = (invariant: Invariant, n: number) => void;

function checkPayments(input: InvariantInput, payments: readonly Item[], fail: Fail, count: Count): void {
  const paymentsByOrder = groupBy(payments, (payment) => String(payment.orderId));
  const paymentIds = new Set(payments.map((payment) => String(payment.paymentId)));
  const okByKey = groupBy(
    input.exchanges.filter(
      (exchange) => exchange.route === 'create-payment' && exchange.status >= 200 && exchange.status < 300,
    ),
    (exchange) => exchange.key!,
  );
  count('one payment per key that got a 2xx', okByKey.size);
  const answeredOrders = new Set<string>();
  for (const [key, answers] of okByKey) {
    const orderId = input.orderIdOfKey.get(key)!;
    answeredOrders.add(orderId);
    const stored = paymentsByOrder.get(orderId) ?? [];
    if (stored.length !== 1)
      fail('one payment per key that got a 2xx', `key ${key}: ${stored.length} payments for order ${orderId}`);
    count('every 2xx carries its payment', answers.length);
    const expected = stored[0]?.paymentId;
    for (const answer of answers) {
      if (answer.paymentId !== expected || !paymentIds.has(String(answer.paymentId))) {
        fail(
          'every 2xx carries its payment',
          `key ${key}: a ${answer.status} (${answer.scenario}) carried ${answer.paymentId}, the table holds ${String(expected)}`,
        );
      }
    }
  }
  for (const [orderId, stored] of paymentsByOrder) {
    if (!answeredOrders.has(orderId))
      fail(
        'one payment per key that got a 2xx',
        `order ${orderId}: ${stored.length} payment(s) no client was answered 2xx for`,
      );
  }
}

function checkRefunds(input: InvariantInput, payments: readonly Item[], fail: Fail, count: Count): void {
  const byId = new Map(payments.map((payment) => [String(payment.paymentId), payment]));
  count('refunds never exceed the amount', payments.length);
  for (const payment of payments) {
    if (
      payment.refundId !== undefined &&
      !(Number(payment.refundedAmount) > 0 && Number(payment.refundedAmount) <= Number(payment.amount))
    ) {
      fail(
        'refunds never exceed the amount',
        `payment ${String(payment.paymentId)}: refunded ${String(payment.refundedAmount)} of ${String(payment.amount)}`,
      );
    }
  }
  const refundAnswers = input.exchanges.filter(
    (exchange) => exchange.route === 'create-refund' && exchange.status >= 200 && exchange.status < 300,
  );
  count('every 2xx carries its payment', refundAnswers.length);
  for (const answer of refundAnswers) {
    const payment = byId.get(String(answer.paymentId));
    if (!payment || payment.refundId !== answer.refundId) {
      fail(
        'every 2xx carries its payment',
        `refund key ${answer.key}: a ${answer.status} carried refund ${answer.refundId}, payment ${String(answer.paymentId)} holds ${String(payment?.refundId)}`,
      );
    }
  }
}

function checkStock(
  input: InvariantInput,
  journal: readonly Item[],
  stock: readonly Item[],
  payments: readonly Item[],
  fail: Fail,
  count: Count,
): void {
  const invariant: Invariant = 'stock reserved once per order event';
  const records = new Map(journal.map((item) => [String(item.pk), item]));
  const events = journal.filter(
    (item) => String(item.pk).startsWith(RecordPrefix.outbox) && item.type === PaymentsEventType.orderConfirmed,
  );
  count(invariant, events.length);
  const reserved = new Map<string, number>();
  const eventPayments = new Set<string>();
  for (const event of events) {
    const detail = JSON.parse(String(event.detail)) as {
      paymentId: string;
      items: { sku: string; quantity: number }[];
    };
    eventPayments.add(detail.paymentId);
    for (const item of detail.items) reserved.set(item.sku, (reserved.get(item.sku) ?? 0) + item.quantity);
    if (event.dispatchedAt === undefined) fail(invariant, `event ${String(event.eventId)} was never dispatched`);
    const inbox = records.get(messagePk(ORDER_EVENTS_CONSUMER, String(event.eventId)));
    if (inbox?.status !== RecordStatus.completed)
      fail(invariant, `event ${String(event.eventId)}: inbox record ${inbox ? String(inbox.status) : 'missing'}`);
  }
  for (const payment of payments) {
    if (!eventPayments.has(String(payment.paymentId)))
      fail(invariant, `payment ${String(payment.paymentId)} has no order.confirmed event`);
  }
  for (const [sku, initial] of input.initialStock) {
    const available = Number(stock.find((item) => item.sku === sku)?.available);
    const expected = initial - (reserved.get(sku) ?? 0);
    if (available !== expected)
      fail(
        invariant,
        `${sku}: ${available} available, ${expected} expected (${initial} seeded − ${reserved.get(sku) ?? 0} ordered)`,
      );
  }
}

/** Leases, `UNKNOWN` records and `idemkit stuck`; returns the records left so for a known reason. */
async function checkRecords(
  input: InvariantInput,
  journal: readonly Item[],
  fail: Fail,
  count: Count,
): Promise<{ unknownRecords: Map<string, number>; abandonedAfterCompletionFailure: string[] }> {
  const guarded = journal.filter(
    (item) => String(item.pk).startsWith(RecordPrefix.request) || String(item.pk).startsWith(RecordPrefix.message),
  );
  count('no record IN_PROGRESS past its lease', guarded.length);
  const abandonedAfterCompletionFailure: string[] = [];
  for (const item of guarded) {
    if (item.status !== RecordStatus.inProgress || Number(item.leaseUntil) >= input.nowEpochMs) continue;
    const pk = String(item.pk);
    if (input.completionFailures.has(attemptOf(pk))) abandonedAfterCompletionFailure.push(pk);
    else
      fail(
        'no record IN_PROGRESS past its lease',
        `${pk}: lease ended ${input.nowEpochMs - Number(item.leaseUntil)} ms ago`,
      );
  }
  const unknown = guarded.filter((item) => item.status === RecordStatus.unknown).map((item) => String(item.pk));
  count('UNKNOWN only where an effect began and did not commit', unknown.length);
  count('every record left behind listed by idemkit stuck', unknown.length);
  const byCause = new Map<string, number>();
  for (const pk of unknown) {
    const cause = input.effectNotCommitted.get(pk);
    if (cause) byCause.set(cause, (byCause.get(cause) ?? 0) + 1);
    else
      fail(
        'UNKNOWN only where an effect began and did not commit',
        `${pk} is UNKNOWN, but no request under it was killed or refused after beginEffect`,
      );
  }
  const listed = await stuckRecords(input);
  count('every record left behind listed by idemkit stuck', abandonedAfterCompletionFailure.length);
  for (const pk of [...unknown, ...abandonedAfterCompletionFailure]) {
    if (!listed.has(pk))
      fail(
        'every record left behind listed by idemkit stuck',
        `${pk} is left behind but idemkit stuck does not list it`,
      );
  }
  return { unknownRecords: byCause, abandonedAfterCompletionFailure };
}

/** The keys `idemkit stuck --json` lists, run through the operator CLI itself. */
async function stuckRecords(input: InvariantInput): Promise<Set<string>> {
  let out = '';
  let err = '';
  const code = await runCli(
    ['--table', input.tables.journal, '--endpoint', input.endpoint, '--region', 'us-east-1', 'stuck', '--json'],
    {
      out: (text) => (out += text),
      err: (text) => (err += text),
    },
  );
  if (code !== 0) throw new Error(`idemkit stuck failed (${code}): ${err}`);
  return new Set((JSON.parse(out) as { pk: string }[]).map((record) => record.pk));
}

/** `<operation or consumer> <idempotency_key_hash>` of a request or message record, as the guard's log line names the attempt. */
function attemptOf(pk: string): string {
  const scope = keyScopeOf(pk);
  if (!scope) throw new Error(`${pk} is not the key of a request or message record`);
  const [name, key] = scope.kind === 'request' ? [scope.operation, scope.key] : [scope.consumer, scope.messageId];
  return `${name} ${sha256Hex(key).slice(0, 16)}`;
}

async function scanAll(doc: DynamoDBDocumentClient, tableName: string): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(
      new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    items.push(...((out.Items ?? []) as Item[]));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
