import { parsePaymentRequest, parseRefundRequest } from '../../src/handlers/payment-request.js';

describe('parsePaymentRequest', () => {
  it('accepts an amount in minor units, a currency, an order id and items', () => {
    const parsed = parsePaymentRequest({
      amount: 1999,
      currency: 'EUR',
      orderId: 'ord-1',
      items: [{ sku: 'mug', quantity: 2 }],
    });
    expect(parsed).toEqual({
      ok: true,
      value: { amount: 1999, currency: 'EUR', orderId: 'ord-1', items: [{ sku: 'mug', quantity: 2 }] },
    });
  });

  it('defaults items to none', () => {
    expect(parsePaymentRequest({ amount: 1, currency: 'USD' })).toEqual({
      ok: true,
      value: { amount: 1, currency: 'USD', items: [] },
    });
  });

  it.each([
    ['a non-object body', 'x'],
    ['a fractional amount', { amount: 19.99, currency: 'EUR' }],
    ['a zero amount', { amount: 0, currency: 'EUR' }],
    ['a lowercase currency', { amount: 1, currency: 'eur' }],
    ['an order id with spaces', { amount: 1, currency: 'EUR', orderId: 'a b' }],
    ['an item without quantity', { amount: 1, currency: 'EUR', items: [{ sku: 'mug' }] }],
    [
      'a repeated sku',
      {
        amount: 1,
        currency: 'EUR',
        items: [
          { sku: 'mug', quantity: 1 },
          { sku: 'mug', quantity: 2 },
        ],
      },
    ],
  ])('refuses %s', (_label, body) => {
    expect(parsePaymentRequest(body)).toMatchObject({ ok: false, error: expect.any(String) });
  });
});

describe('parseRefundRequest', () => {
  it('refunds the full amount when there is no body', () => {
    expect(parseRefundRequest(undefined)).toEqual({ ok: true, value: {} });
  });

  it('accepts a partial amount and a reason', () => {
    expect(parseRefundRequest({ amount: 500, reason: 'damaged' })).toEqual({
      ok: true,
      value: { amount: 500, reason: 'damaged' },
    });
  });

  it('refuses a negative amount', () => {
    expect(parseRefundRequest({ amount: -5 })).toMatchObject({ ok: false });
  });
});
