import { randomUUID } from 'node:crypto';
import { InProgressError, JournalUnavailableError, LeaseLostError, makeIdempotent } from '../../src/index.js';
import { ValkeyJournal, type ValkeyClient } from '../../src/entries/valkey.js';
import { startValkeyServer, type ValkeyServer } from '../support/valkey.js';

/*
 * Regression tests for the two ways Powertools' cache persistence layer lost its dedupe:
 * (a) aws-powertools/powertools-lambda-typescript#5714: an orphaned in-progress record recovered by
 *     a blind overwrite, so several containers took it over at once and each ran the handler;
 * (b) #5716: a client that silently ignored the lock's NX/PX options, so the "lock" was a plain
 *     overwrite and every caller ran.
 * The journal's takeover is one script fenced on the token read, and it reads success only in the
 * reply its script gives: with racing takeovers exactly one wins, and a client that drops
 * arguments, calls or replies makes it refuse (503 / JournalUnavailableError), never run twice.
 */
let server: ValkeyServer;
beforeAll(async () => {
  server = await startValkeyServer();
});
afterAll(() => server?.stop());

const quiet = { warn: () => undefined };

function testClock() {
  let now = Date.now();
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('(a) racing takeovers of one orphaned in-progress record (Powertools TS #5714)', () => {
  it('lets exactly one of 40 containers take the record over and run the handler', async () => {
    const clock = testClock();
    let runs = 0;
    const never = new Promise<never>(() => undefined);
    let firstRunStarted!: () => void;
    const firstRun = new Promise<void>((resolve) => (firstRunStarted = resolve));
    const container = () =>
      makeIdempotent(
        async () => {
          runs++;
          // The first run is the container that died mid-handler; the takeover's run stays in its handler while the
          // others arrive, so a second winner would show as a second run.
          if (runs === 1) {
            firstRunStarted();
            await never;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
          return `run ${runs}`;
        },
        {
          journal: new ValkeyJournal({ client: server.client(), clock: clock.now, logger: quiet }),
          operation: 'orphaned',
          key: () => key,
          leaseMs: 1_000,
          clock: clock.now,
        },
      );
    const key = randomUUID();
    void container()({});
    // Its reservation has landed once its handler runs (a fixed sleep was too short on a loaded machine).
    await firstRun;
    clock.advance(2_000);

    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, () => container()({})));

    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(runs).toBe(2);
    expect(won.map((outcome) => (outcome as PromiseFulfilledResult<string>).value)).toEqual(['run 2']);
    for (const reason of refused) expect(reason).toBeInstanceOf(InProgressError);
  });

  it('lets exactly one of 50 concurrent takeOver calls with the token read win; the others get LeaseLostError', async () => {
    const clock = testClock();
    const journals = Array.from(
      { length: 50 },
      () => new ValkeyJournal({ client: server.client(), clock: clock.now, logger: quiet }),
    );
    const pk = `req#-#orphaned#${randomUUID()}`;
    const { record } = await journals[0]!.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 3_600 });
    clock.advance(2_000);

    const outcomes = await Promise.allSettled(
      journals.map((journal) => journal.takeOver({ pk, expectedToken: record.leaseToken, leaseMs: 1_000 })),
    );

    const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(LeaseLostError);
    const stored = await journals[0]!.get(pk);
    expect(stored?.attempt).toBe(2);
    expect(stored?.leaseToken).toBe((winners[0] as PromiseFulfilledResult<{ leaseToken: string }>).value.leaseToken);
  });
});

/** A client that passes every call to `inner` except what `tamper` changes. */
function tampered(
  inner: ValkeyClient,
  tamper: (args: string[], call: (args: string[]) => Promise<unknown>) => Promise<unknown>,
): ValkeyClient {
  return {
    evalsha: (sha1, numKeys, ...rest) => tamper(rest, (args) => inner.evalsha(sha1, numKeys, ...args)),
    eval: (script, numKeys, ...rest) => tamper(rest, (args) => inner.eval(script, numKeys, ...args)),
    info: (section) => inner.info(section),
  };
}

const CLIENTS_THAT_LIE: readonly (readonly [string, Parameters<typeof tampered>[1]])[] = [
  // The call never reaches the server, and the client answers as a SET NX PX that succeeded would.
  ['swallows the call and answers OK', async () => 'OK'],
  ['swallows the call and answers nothing', async () => null],
  ['swallows the call and answers an empty list', async () => []],
  // Like the GLIDE client that ignored NX and PX: the options after the key never reach the server.
  ['drops every argument after the key', async (args, call) => call(args.slice(0, 1))],
  ['drops the last arguments', async (args, call) => call(args.slice(0, -2))],
  // The call lands, and the reply is lost or mangled on its way back.
  [
    'runs the call and swallows its reply',
    async (args, call) => {
      await call(args);
      return 'OK';
    },
  ],
  ['runs the call and answers with numbers', async (args, call) => ((await call(args)) as unknown[]).map((_, i) => i)],
];

describe('(b) a client that silently drops options, calls or replies (Powertools #5716)', () => {
  it.each(CLIENTS_THAT_LIE)('a client that %s: the handler never runs, the guard refuses', async (_name, tamper) => {
    let runs = 0;
    const journal = new ValkeyJournal({ client: tampered(server.client(), tamper), logger: quiet });
    const charge = makeIdempotent(
      async () => {
        runs++;
        return 'charged';
      },
      { journal, operation: 'lying-client', key: () => key },
    );
    const key = randomUUID();

    const outcomes = await Promise.allSettled([charge({}), charge({}), charge({})]);

    expect(runs).toBe(0);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(JournalUnavailableError);
    }
  });

  it('a client that drops the reply of a completion does not turn it into a second run', async () => {
    let runs = 0;
    const honest = server.client();
    let dropCompletion = true;
    const journal = new ValkeyJournal({
      client: tampered(honest, async (args, call) => {
        const reply = await call(args);
        // The completion is the only call whose arguments carry the response's encoding.
        if (dropCompletion && args.includes('responseEncoding')) return null;
        return reply;
      }),
      logger: quiet,
    });
    const options = { journal, operation: 'lost-reply', key: () => key };
    const key = randomUUID();
    const charge = makeIdempotent(async () => `charged ${++runs}`, options);

    await charge({}).catch(() => undefined);
    dropCompletion = false;
    const retried = await charge({}).catch((error: unknown) => error);

    expect(runs).toBe(1);
    expect(retried).toBe('charged 1');
  });
});
