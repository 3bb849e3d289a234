import middy from '@middy/core';
import {
  httpIdempotency,
  InvalidOptionsError,
  makeIdempotent,
  MemoryJournal,
  type MetricsSink,
} from '../../../src/index.js';
import { MetricDimension } from '../../../src/telemetry/metric-names.js';
import { httpApiEvent, lambdaContext } from '../../../src/testing/index.js';

/** A metrics sink that keeps the `Operation` dimension of every metric the guard emits. */
function operationDimensions(): { metrics: MetricsSink; seen: string[] } {
  const seen: string[] = [];
  const metrics = {
    singleMetric: () => ({
      clearDimensions: () => undefined,
      clearDefaultDimensions: () => undefined,
      addDimension: (name: string, value: string) => void (name === MetricDimension.operation && seen.push(value)),
      addMetric: () => undefined,
    }),
  } as never as MetricsSink;
  return { metrics, seen };
}

/** Runs `act` with IDEMKIT_OPERATION set as an `IdemkitFunction` with `operationName` sets it. */
async function underOperationName<T>(name: string | undefined, act: () => Promise<T>): Promise<T> {
  const saved = process.env.IDEMKIT_OPERATION;
  if (name === undefined) delete process.env.IDEMKIT_OPERATION;
  else process.env.IDEMKIT_OPERATION = name;
  try {
    return await act();
  } finally {
    if (saved === undefined) delete process.env.IDEMKIT_OPERATION;
    else process.env.IDEMKIT_OPERATION = saved;
  }
}

interface GuardSetup {
  readonly journal: MemoryJournal;
  readonly metrics: MetricsSink;
  readonly operation?: string;
}

/** How often the guarded code itself ran, across every guard of a test. */
const runs = { count: 0 };
beforeEach(() => (runs.count = 0));

/** One guarded call through each entry point that takes an operation, built inside the given environment. */
const ENTRY_POINTS = {
  httpIdempotency: (options: GuardSetup) => {
    const handler = middy(async () => {
      runs.count++;
      return { statusCode: 201, body: '{"ok":true}' };
    }).use(httpIdempotency(options));
    return (key: string) =>
      handler(httpApiEvent({ method: 'POST', path: '/orders', idempotencyKey: key, body: { a: 1 } }), lambdaContext());
  },
  makeIdempotent: (options: GuardSetup) => {
    const fn = makeIdempotent(async (input: { id: string }) => ({ ok: input.id, run: ++runs.count }), {
      ...options,
      key: (input) => input.id,
    });
    return (key: string) => fn({ id: key }, lambdaContext());
  },
};

describe.each(Object.entries(ENTRY_POINTS))('%s without an operation option', (_entry, guarded) => {
  it('emits the Operation dimension IDEMKIT_OPERATION names', async () => {
    const { metrics, seen } = operationDimensions();
    const call = await underOperationName('create-order', async () =>
      guarded({ journal: new MemoryJournal(), metrics }),
    );

    await call('key-1');

    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['create-order']));
  });

  it('scopes its records by that name: a guard given the same operation explicitly replays them', async () => {
    const journal = new MemoryJournal();
    const fromEnvironment = await underOperationName('create-order', async () =>
      guarded({ journal, metrics: operationDimensions().metrics }),
    );
    const explicit = guarded({ journal, metrics: operationDimensions().metrics, operation: 'create-order' });
    await fromEnvironment('key-2');

    await explicit('key-2');

    expect(runs.count).toBe(1);
  });

  it('keeps an explicit operation option over IDEMKIT_OPERATION', async () => {
    const { metrics, seen } = operationDimensions();
    const call = await underOperationName('create-order', async () =>
      guarded({ journal: new MemoryJournal(), metrics, operation: 'POST /orders/v2' }),
    );

    await call('key-3');

    expect(new Set(seen)).toEqual(new Set(['POST /orders/v2']));
  });
});

describe('without IDEMKIT_OPERATION', () => {
  it('httpIdempotency names the operation by the route, as before', async () => {
    const { metrics, seen } = operationDimensions();
    const call = await underOperationName(undefined, async () =>
      ENTRY_POINTS.httpIdempotency({ journal: new MemoryJournal(), metrics }),
    );

    await call('key-4');

    expect(new Set(seen)).toEqual(new Set(['POST /orders']));
  });

  it('makeIdempotent refuses to be built without an operation', async () => {
    await underOperationName(undefined, async () => {
      expect(() =>
        ENTRY_POINTS.makeIdempotent({ journal: new MemoryJournal(), metrics: operationDimensions().metrics }),
      ).toThrow(InvalidOptionsError);
    });
  });

  it('treats an empty IDEMKIT_OPERATION as unset', async () => {
    await underOperationName('', async () => {
      expect(() =>
        ENTRY_POINTS.makeIdempotent({ journal: new MemoryJournal(), metrics: operationDimensions().metrics }),
      ).toThrow(/option 'operation' is required/);
    });
  });
});
