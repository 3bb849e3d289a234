import { createFakePaymentRail, RailKeyReusedError } from '../../src/handlers/payment-rail.js';

describe('createFakePaymentRail', () => {
  it('returns the same charge for the same key', async () => {
    const rail = createFakePaymentRail();
    const first = await rail.charge({ amount: 100, currency: 'EUR', idempotencyKey: 'k1' });
    const again = await rail.charge({ amount: 100, currency: 'EUR', idempotencyKey: 'k1' });
    expect(again).toEqual(first);
    expect(first.chargeId).toMatch(/^ch_[0-9a-f]{24}$/);
  });

  it('answers alike on another instance, as an external rail would', async () => {
    const request = { amount: 100, currency: 'EUR', idempotencyKey: 'k2' };
    expect(await createFakePaymentRail().charge(request)).toEqual(await createFakePaymentRail().charge(request));
  });

  it('refuses a key reused with another amount', async () => {
    const rail = createFakePaymentRail();
    await rail.charge({ amount: 100, currency: 'EUR', idempotencyKey: 'k3' });
    await expect(rail.charge({ amount: 200, currency: 'EUR', idempotencyKey: 'k3' })).rejects.toBeInstanceOf(
      RailKeyReusedError,
    );
  });

  it('refunds once per key', async () => {
    const rail = createFakePaymentRail();
    const refund = { chargeId: 'ch_1', amount: 100, idempotencyKey: 'refund:pay_1' };
    expect(await rail.refund(refund)).toEqual(await rail.refund(refund));
    expect(rail.calls).toBe(2);
  });
});
