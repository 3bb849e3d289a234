import { RequestInvalidError, makeIdempotent } from '../../src/index.js';
import { dynamoJournal } from '../http/guarded-handler.js';

type Charge = { key: string; tenantId: unknown; amount: number };

describe('makeIdempotent on DynamoDB Local', () => {
  describe('tenant scope', () => {
    async function charger() {
      const { journal } = await dynamoJournal();
      let runs = 0;
      const charge = makeIdempotent(async (input: Charge) => ({ charged: input.amount, run: ++runs }), {
        journal,
        operation: 'charge',
        key: (input) => input.key,
        tenant: (input) => input.tenantId as string,
      });
      return { journal, charge, runs: () => runs };
    }

    it('keeps two numeric tenants apart and scopes each by its decimal string', async () => {
      const { journal, charge, runs } = await charger();

      await charge({ key: 'k-1', tenantId: 4217, amount: 10 });
      await charge({ key: 'k-1', tenantId: 4218, amount: 10 });

      expect(runs()).toBe(2);
      expect(await journal.get('req#4217#charge#k-1')).toBeDefined();
      expect(await journal.get('req#4218#charge#k-1')).toBeDefined();
    });

    it.each([
      ['an empty string', ''],
      ['a boolean', false],
    ])('refuses a tenant that is %s with RequestInvalidError before the function runs', async (_label, tenantId) => {
      const { charge, runs } = await charger();

      await expect(charge({ key: 'k-2', tenantId, amount: 10 })).rejects.toBeInstanceOf(RequestInvalidError);
      expect(runs()).toBe(0);
    });
  });
});
