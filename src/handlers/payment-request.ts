/** One line of an order: how many units of a SKU. */
export interface OrderItem {
  readonly sku: string;
  readonly quantity: number;
}

/** A validated `POST /payments` body. Amounts are integers in the currency's minor unit. */
export interface PaymentRequest {
  readonly amount: number;
  readonly currency: string;
  readonly orderId?: string;
  readonly items: readonly OrderItem[];
}

/** A validated `POST /payments/{id}/refunds` body. */
export interface RefundRequest {
  readonly amount?: number;
  readonly reason?: string;
}

/** The outcome of validating a body: the value, or why it was refused. */
export type Validated<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const MAX_AMOUNT = 100_000_000;
const MAX_ITEMS = 20;
const IDENTIFIER = /^[\x21-\x7e]{1,64}$/;

/**
 * Validates `{ amount, currency, orderId?, items? }`.
 *
 * @example parsePaymentRequest({ amount: 1999, currency: 'EUR' }) // { ok: true, value: {...} }
 */
export function parsePaymentRequest(body: unknown): Validated<PaymentRequest> {
  if (!isObject(body)) return fail('the body must be a JSON object');
  if (!isAmount(body.amount)) return fail(`amount must be an integer from 1 to ${MAX_AMOUNT} (minor units)`);
  if (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency))
    return fail('currency must be an ISO 4217 code');
  if (body.orderId !== undefined && !isIdentifier(body.orderId))
    return fail('orderId must be 1-64 visible ASCII characters');
  const items = body.items ?? [];
  if (!Array.isArray(items) || items.length > MAX_ITEMS || !items.every(isOrderItem)) {
    return fail(`items must be at most ${MAX_ITEMS} entries of { sku, quantity }`);
  }
  const skus = new Set(items.map((item) => item.sku));
  if (skus.size !== items.length) return fail('each sku may appear once in items');
  return {
    ok: true,
    value: {
      amount: body.amount,
      currency: body.currency,
      ...(body.orderId !== undefined ? { orderId: body.orderId as string } : {}),
      items: items.map(({ sku, quantity }) => ({ sku, quantity })),
    },
  };
}

/**
 * Validates `{ amount?, reason? }` (an absent body refunds the full amount).
 *
 * @example parseRefundRequest(undefined) // { ok: true, value: {} }
 */
export function parseRefundRequest(body: unknown): Validated<RefundRequest> {
  if (body === undefined) return { ok: true, value: {} };
  if (!isObject(body)) return fail('the body must be a JSON object');
  if (body.amount !== undefined && !isAmount(body.amount))
    return fail(`amount must be an integer from 1 to ${MAX_AMOUNT}`);
  if (body.reason !== undefined && (typeof body.reason !== 'string' || body.reason.length > 200)) {
    return fail('reason must be a string of at most 200 characters');
  }
  return {
    ok: true,
    value: {
      ...(body.amount !== undefined ? { amount: body.amount as number } : {}),
      ...(body.reason !== undefined ? { reason: body.reason as string } : {}),
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAmount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0 && (value as number) <= MAX_AMOUNT;
}

function isIdentifier(value: unknown): value is string {
  return typeof value === 'string' && IDENTIFIER.test(value);
}

function isOrderItem(value: unknown): value is OrderItem {
  return (
    isObject(value) &&
    isIdentifier(value.sku) &&
    Number.isSafeInteger(value.quantity) &&
    (value.quantity as number) > 0 &&
    (value.quantity as number) <= 1000
  );
}

function fail<T>(error: string): Validated<T> {
  return { ok: false, error };
}
