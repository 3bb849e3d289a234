import { GetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DynamoDBJournal,
  PayloadMismatchError,
  RecordStatus,
  RequestInvalidError,
  ResponseNotSerializableError,
  idempotencyOf,
  makeIdempotent,
} from '../../src/index.js';
import { createTable, dynamoJournal } from '../support/dynamodb.js';

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

  describe('results JSON cannot carry', () => {
    const cyclic = () => {
      const node: Record<string, unknown> = { amount: 10 };
      node.self = node;
      return node;
    };

    it.each([
      ['a BigInt', () => ({ amount: 10n })],
      ['a cycle', cyclic],
    ])(
      'never runs the function again after it returned %s, and every call gets ResponseNotSerializableError',
      async (_label, result) => {
        const { journal } = await dynamoJournal();
        let runs = 0;
        const charge = makeIdempotent(
          async (_input: { key: string }) => {
            runs++;
            return result();
          },
          { journal, operation: 'charge', key: (input) => input.key },
        );

        const first = await charge({ key: 'charge-1' }).catch((error: unknown) => error);
        const retry = await charge({ key: 'charge-1' }).catch((error: unknown) => error);

        expect(first).toBeInstanceOf(ResponseNotSerializableError);
        expect(retry).toBeInstanceOf(ResponseNotSerializableError);
        expect(runs).toBe(1);
        expect((await journal.get('req#-#charge#charge-1'))?.status).toBe(RecordStatus.completed);
      },
    );

    it("commits the function's staged writes with the record when its result cannot be stored", async () => {
      const { journal, client } = await dynamoJournal();
      const ledger = await createTable(client, 'ledger');
      const charge = makeIdempotent(
        async (input: { key: string }, context) => {
          idempotencyOf(context).stage({ Put: { TableName: ledger, Item: { pk: input.key, amount: 10 } } });
          return { amount: 10n };
        },
        { journal, operation: 'charge', key: (input) => input.key },
      );

      await expect(charge({ key: 'charge-2' })).rejects.toBeInstanceOf(ResponseNotSerializableError);

      const entry = await DynamoDBDocumentClient.from(client).send(
        new GetCommand({ TableName: ledger, Key: { pk: 'charge-2' } }),
      );
      expect(entry.Item).toEqual({ pk: 'charge-2', amount: 10 });
    });
  });

  describe('the stored form of a result', () => {
    it('gives the first caller and every replay the same JSON form of a Date and a Map', async () => {
      const { journal, tableName, client } = await dynamoJournal();
      const book = (store: typeof journal) =>
        makeIdempotent(
          async (_input: { key: string }) => ({
            at: new Date('2025-03-01T10:00:00.000Z'),
            seats: new Map([['12A', 'held']]),
            note: undefined,
          }),
          {
            journal: store,
            operation: 'book',
            key: (input) => input.key,
          },
        );
      const container = book(journal);

      const first = await container({ key: 'book-1' });
      const replay = await container({ key: 'book-1' });
      const coldReplay = await book(new DynamoDBJournal({ tableName, client }))({ key: 'book-1' });

      expect(first).toEqual({ at: '2025-03-01T10:00:00.000Z', seats: {} });
      expect(first.at).not.toBeInstanceOf(Date);
      expect(replay).toEqual(first);
      expect(coldReplay).toEqual(first);
    });
  });

  describe('the default fingerprint of inputs JSON cannot carry', () => {
    async function booker() {
      const { journal } = await dynamoJournal();
      const inputs: unknown[] = [];
      const book = makeIdempotent(
        async (input: { key: string; seats: unknown }) => {
          inputs.push(input.seats);
          return { booked: inputs.length };
        },
        { journal, operation: 'book', key: (input) => input.key },
      );
      return { book, inputs };
    }

    it.each<[string, unknown, unknown]>([
      ['Maps', new Map([['12A', { class: 'economy' }]]), new Map([['14C', { class: 'economy' }]])],
      ['Sets', new Set(['12A']), new Set(['14C'])],
      ['BigInts', 12n, 14n],
      ['typed arrays', new Uint8Array([12]), new Uint8Array([14])],
    ])(
      'refuses a retry whose %s differ with PayloadMismatchError, running the function once',
      async (_label, first, other) => {
        const { book, inputs } = await booker();

        await book({ key: 'seat-1', seats: first });
        const retry = await book({ key: 'seat-1', seats: other }).catch((error: unknown) => error);

        expect(retry).toBeInstanceOf(PayloadMismatchError);
        expect(inputs).toEqual([first]);
      },
    );

    it('replays a retry whose Map holds the same entries in another order', async () => {
      const { book, inputs } = await booker();

      const first = await book({
        key: 'seat-2',
        seats: new Map([
          ['12A', 1],
          ['12B', 2],
        ]),
      });
      const retry = await book({
        key: 'seat-2',
        seats: new Map([
          ['12B', 2],
          ['12A', 1],
        ]),
      });

      expect(retry).toEqual(first);
      expect(inputs).toHaveLength(1);
    });

    it.each<[string, unknown]>([
      ['a function', () => '12A'],
      ['a WeakMap', new WeakMap()],
    ])('refuses an input holding %s with RequestInvalidError before the function runs', async (_label, seats) => {
      const { book, inputs } = await booker();

      await expect(book({ key: 'seat-3', seats })).rejects.toBeInstanceOf(RequestInvalidError);
      expect(inputs).toHaveLength(0);
    });
  });

  it('refuses an input whose state is private before the function runs, so two amounts never share a result', async () => {
    class Money {
      readonly #cents: number;
      constructor(cents: number) {
        this.#cents = cents;
      }
      get cents(): number {
        return this.#cents;
      }
    }
    const { journal } = await dynamoJournal();
    let runs = 0;
    const charge = makeIdempotent(
      async (input: { id: string; amount: Money }) => ({ charged: input.amount.cents, run: ++runs }),
      {
        journal,
        operation: 'charge',
        key: (input) => input.id,
      },
    );

    const small = await charge({ id: 'money-1', amount: new Money(100) }).catch((e: unknown) => e);
    const large = await charge({ id: 'money-1', amount: new Money(99_900) }).catch((e: unknown) => e);

    expect(small).toBeInstanceOf(RequestInvalidError);
    expect(large).toBeInstanceOf(RequestInvalidError);
    expect((large as Error).message).toMatch(/Money at \$\.amount/);
    expect(runs).toBe(0);
    expect(await journal.get('req#-#charge#money-1')).toBeUndefined();
  });
});
