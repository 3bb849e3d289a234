import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as Idemkit from '../../../src/index.js';
import type * as Migration from '../../../src/entries/migration.js';
import type * as GuardedHandler from '../../http/guarded-handler.js';
import { httpEvent } from '../../support/lambda.js';

// Counts evaluations of Powertools' JMESPath package: the factory runs once per module registry, when
// something first requires it. It returns the real package, so lookups behave as in production.
let jmespathLoads = 0;
jest.mock('@aws-lambda-powertools/jmespath', () => {
  jmespathLoads += 1;
  return jest.requireActual('@aws-lambda-powertools/jmespath');
});

/** A Powertools table that holds nothing: every lookup finds no record, so the handler runs. */
const emptyPowertoolsTable = { send: async () => ({}) };
const powertoolsOptions = (eventKeyJmesPath: string) => ({
  tableName: 'IdempotencyTable',
  keyPrefix: 'create-payment',
  eventKeyJmesPath,
  client: emptyPowertoolsTable as unknown as DynamoDBClient,
});
const request = (key: string): APIGatewayProxyEventV2 => httpEvent({ key, body: { amount: 1 } });

/** idemkit (and its migration entry) imported into a fresh module registry, as a new Lambda container imports it. */
async function coldImport<T>(
  use: (idemkit: typeof Idemkit, http: typeof GuardedHandler, migration: typeof Migration) => Promise<T>,
): Promise<T> {
  let result: T | undefined;
  await jest.isolateModulesAsync(async () => {
    result = await use(
      await import('../../../src/index.js'),
      await import('../../http/guarded-handler.js'),
      await import('../../../src/entries/migration.js'),
    );
  });
  return result as T;
}

describe('Powertools JMESPath, loaded on first need', () => {
  beforeEach(() => {
    jmespathLoads = 0;
  });

  it('is not loaded by importing idemkit and its migration entry and running a guard without migrateFrom', async () => {
    const calls = await coldImport(async ({ MemoryJournal }, { countingHandler, guard }) => {
      const { handler, calls } = countingHandler();
      expect((await guard(handler, new MemoryJournal())(request('k-1'))).statusCode).toBe(201);
      return calls;
    });
    expect(calls).toHaveLength(1);
    expect(jmespathLoads).toBe(0);
  });

  it('is loaded once a factory is given migrateFrom, and its lookups let new keys run', async () => {
    const calls = await coldImport(async ({ MemoryJournal }, { countingHandler, guard }, { fromPowertools }) => {
      const { handler, calls } = countingHandler();
      const migrateFrom = fromPowertools(powertoolsOptions('headers."idempotency-key"'));
      expect(jmespathLoads).toBe(0);
      const guarded = guard(handler, new MemoryJournal(), { migrateFrom });
      await guarded(request('k-1'));
      await guarded(request('k-2'));
      return calls;
    });
    expect(calls).toHaveLength(2);
    expect(jmespathLoads).toBe(1);
  });

  it('answers every request with the expression that does not compile, runs nothing and keeps no reservation', async () => {
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    try {
      await coldImport(async ({ MemoryJournal }, { countingHandler, guard }, { fromPowertools }) => {
        const { handler, calls } = countingHandler();
        const journal = new MemoryJournal();
        const reserve = jest.spyOn(journal, 'reserve');
        const release = jest.spyOn(journal, 'release');
        // The factory returns: the expression is compiled once JMESPath has loaded, just after.
        const guarded = guard(handler, journal, { migrateFrom: fromPowertools(powertoolsOptions('headers.[')) });
        await new Promise((resolve) => setImmediate(resolve));
        for (const key of ['k-1', 'k-1', 'k-2']) {
          await expect(guarded(request(key))).rejects.toThrow(
            "option 'migrateFrom' (fromPowertools option 'eventKeyJmesPath') is not a valid JMESPath expression",
          );
        }
        expect(calls).toHaveLength(0);
        expect(reserve).toHaveBeenCalledTimes(3);
        expect(release).toHaveBeenCalledTimes(3);
      });
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
