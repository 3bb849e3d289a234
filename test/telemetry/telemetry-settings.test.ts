import { sqsConsumer } from '../../src/sqs/index.js';
import { httpEvent } from '../support/lambda.js';
import { sqsRecord } from '../support/sqs.js';
import { dynamoJournal } from '../support/dynamodb.js';
import { guard } from '../http/guarded-handler.js';
import { metricCounter } from '../sqs/consumer-fixtures.js';

type Environment = Record<string, string | undefined>;

/** Runs `act` with the Powertools environment set as given, and returns what it printed: JSON log lines and EMF records. */
async function printedUnder(
  environment: Environment,
  act: () => Promise<unknown>,
): Promise<{ logs: Array<Record<string, any>>; emf: Array<Record<string, any>>; warnings: string[] }> {
  const previous = Object.fromEntries(Object.keys(environment).map((name) => [name, process.env[name]]));
  const setAll = (values: Environment) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  const printed: string[] = [];
  const warnings: string[] = [];
  const spies = (['log', 'info', 'error', 'debug'] as const).map((method) =>
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(String(args[0]))),
  );
  spies.push(
    jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(String(args[0]))),
  );
  setAll(environment);
  try {
    await act();
  } finally {
    setAll(previous);
    for (const spy of spies) spy.mockRestore();
  }
  const records = printed.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, any>);
  return {
    logs: records.filter((record) => record._aws === undefined),
    emf: records.filter((record) => record._aws !== undefined),
    warnings,
  };
}

const ENVIRONMENT = {
  POWERTOOLS_SERVICE_NAME: 'payments',
  POWERTOOLS_METRICS_NAMESPACE: 'PaymentsNs',
  POWERTOOLS_LOG_LEVEL: 'INFO',
  POWERTOOLS_METRICS_DISABLED: 'false',
};

describe('telemetry settings: option, then the Powertools environment, then the built-in default', () => {
  async function guardedRequest(options: { namespace?: string } = {}) {
    const { journal } = await dynamoJournal();
    const guarded = guard(async () => ({ statusCode: 201, body: '{}' }), journal, options);
    return () => guarded(httpEvent({ key: `telemetry-${Math.random()}`, body: { a: 1 } }));
  }

  it('writes the log line under POWERTOOLS_SERVICE_NAME and the metrics in POWERTOOLS_METRICS_NAMESPACE', async () => {
    const { logs, emf } = await printedUnder(ENVIRONMENT, async () => (await guardedRequest())());

    expect(logs).toEqual([
      expect.objectContaining({ message: 'idempotency', service: 'payments', idempotency_status: 'new' }),
    ]);
    expect(emf).toEqual([
      expect.objectContaining({
        _aws: expect.objectContaining({
          CloudWatchMetrics: [expect.objectContaining({ Namespace: 'PaymentsNs', Dimensions: [['Operation']] })],
        }),
        Operation: 'POST /payments',
        NewRequest: 1,
      }),
    ]);
  });

  it('lets the namespace option win over POWERTOOLS_METRICS_NAMESPACE', async () => {
    const { emf } = await printedUnder(ENVIRONMENT, async () => (await guardedRequest({ namespace: 'OptionNs' }))());

    expect(emf.map((record) => record._aws.CloudWatchMetrics[0].Namespace)).toEqual(['OptionNs']);
  });

  it("falls back to service 'idemkit' and namespace 'Idempotency' without the environment", async () => {
    const { logs, emf } = await printedUnder(
      { ...ENVIRONMENT, POWERTOOLS_SERVICE_NAME: undefined, POWERTOOLS_METRICS_NAMESPACE: undefined },
      async () => (await guardedRequest())(),
    );

    expect(logs.map((log) => log.service)).toEqual(['idemkit']);
    expect(emf.map((record) => record._aws.CloudWatchMetrics[0].Namespace)).toEqual(['Idempotency']);
  });

  it('prints no log line under POWERTOOLS_LOG_LEVEL=ERROR and no metric under POWERTOOLS_METRICS_DISABLED=true', async () => {
    const { logs, emf } = await printedUnder(
      { ...ENVIRONMENT, POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_METRICS_DISABLED: 'true' },
      async () => (await guardedRequest())(),
    );

    expect(logs).toEqual([]);
    expect(emf).toEqual([]);
  });

  it('emits each queue metric with only its own Consumer dimension, in the namespace of the environment', async () => {
    const { journal } = await dynamoJournal();
    const handle = async () => undefined;
    const record = sqsRecord('{"id":"m-1"}');

    const { emf, warnings } = await printedUnder(ENVIRONMENT, async () => {
      const orders = sqsConsumer(handle, { journal, consumer: 'orders' });
      const refunds = sqsConsumer(handle, { journal, consumer: 'refunds' });
      await orders({ Records: [record] });
      await orders({ Records: [record] });
      await refunds({ Records: [record] });
    });

    expect(
      emf.map((r) => [
        r._aws.CloudWatchMetrics[0].Namespace,
        r._aws.CloudWatchMetrics[0].Dimensions,
        r.Consumer,
        Object.keys(r).filter((k) => !['_aws', 'Consumer'].includes(k)),
      ]),
    ).toEqual([
      ['PaymentsNs', [['Consumer']], 'orders', ['NewRequest']],
      ['PaymentsNs', [['Consumer']], 'orders', ['DuplicateSuppressed']],
      ['PaymentsNs', [['Consumer']], 'refunds', ['NewRequest']],
    ]);
    expect(warnings).toEqual([]);
  });

  it('adds each metric its dimension afresh, even through a metrics sink that does not clear it when it flushes', async () => {
    const { journal } = await dynamoJournal();
    const counter = metricCounter();

    const { warnings } = await printedUnder({}, async () => {
      const consumer = sqsConsumer(async () => undefined, { journal, consumer: 'orders' });
      await consumer({ Records: [sqsRecord('{"id":"a"}'), sqsRecord('{"id":"b"}')] });
    });
    const dimensions = counter.dimensions();
    counter.restore();

    expect(dimensions).toEqual([
      ['Consumer', 'orders'],
      ['Consumer', 'orders'],
    ]);
    expect(warnings.filter((warning) => warning.includes('has already been added'))).toEqual([]);
  });
});
