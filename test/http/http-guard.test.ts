import { MemoryJournal } from '../../src/index.js';
import {
  HttpGuard,
  OversizedResponse,
  resolveHttpGuardOptions,
  type HttpGuardOptions,
  type HttpGuardRequest,
  type HttpResponse,
} from '../../src/http/index.js';
import { type Journal } from '../../src/entries/journal.js';

/** A guard with no framework and no Lambda: what every door is a translation onto. */
function plainGuard(journal: Journal, options: Partial<HttpGuardOptions> = {}) {
  return new HttpGuard(resolveHttpGuardOptions('plain', { journal, ...options }, []));
}

function plainRequest(key: string, context: object = {}): HttpGuardRequest<undefined> {
  return {
    method: 'POST',
    route: 'POST /payments/{id}/refunds',
    path: '/payments/p_1/refunds',
    query: {},
    headers: { 'idempotency-key': key, 'content-type': 'application/json' },
    body: Buffer.from('{"amount":10}'),
    defaultTenant: () => '-',
    source: undefined,
    context,
  };
}

const created = (body: string): HttpResponse => ({
  statusCode: 201,
  headers: { 'content-type': 'application/json' },
  body,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts a journal's heartbeats. */
function countingHeartbeats(journal: MemoryJournal): { count: () => number } {
  let beats = 0;
  const heartbeat = journal.heartbeat.bind(journal);
  journal.heartbeat = (...args) => {
    beats++;
    return heartbeat(...args);
  };
  return { count: () => beats };
}

describe('the HTTP guard without a framework', () => {
  it("answers with the handler's own response, then replays the stored one without running the handler", async () => {
    const guard = plainGuard(new MemoryJournal());
    let runs = 0;
    const run = async () => ({ kind: 'returned', response: created(`{"run":${++runs}}`) }) as const;

    const first = await guard.handle(plainRequest('k1'), run);
    const retry = await guard.handle(plainRequest('k1'), run);

    expect(first).toEqual({ kind: 'own' });
    expect(retry).toEqual({
      kind: 'answer',
      response: {
        ...created('{"run":1}'),
        headers: { 'content-type': 'application/json', 'Idempotent-Replayed': 'true' },
      },
    });
    expect(runs).toBe(1);
  });

  it('lets a request without a key on a method that does not require one pass, unguarded', async () => {
    const guard = plainGuard(new MemoryJournal());
    const request = { ...plainRequest('k'), method: 'GET', headers: {} };

    const answer = await guard.handle(request, async () => ({ kind: 'returned', response: created('{}') }));

    expect(answer).toEqual({ kind: 'pass' });
  });

  it('renews the lease while a handler with no deadline runs past it, so a retry meanwhile is refused, not run', async () => {
    const journal = new MemoryJournal();
    const beats = countingHeartbeats(journal);
    const guard = plainGuard(journal, { leaseMs: 300 });
    let runs = 0;
    const slow = async () => {
      runs++;
      await sleep(800);
      return { kind: 'returned', response: created('{}') } as const;
    };

    const first = guard.handle(plainRequest('k2'), slow);
    await sleep(550);
    const retry = await guard.handle(plainRequest('k2'), slow);
    await first;

    expect(retry).toMatchObject({ kind: 'answer', response: { statusCode: 409 } });
    expect(runs).toBe(1);
    expect(beats.count()).toBeGreaterThanOrEqual(2);
  });

  it('stops renewing once the handler settled', async () => {
    const journal = new MemoryJournal();
    const beats = countingHeartbeats(journal);
    const guard = plainGuard(journal, { leaseMs: 150 });
    await guard.handle(plainRequest('k3'), async () => {
      await sleep(200);
      return { kind: 'returned', response: created('{}') };
    });
    const settled = beats.count();

    await sleep(300);

    expect(settled).toBeGreaterThanOrEqual(1);
    expect(beats.count()).toBe(settled);
  });

  it('renews nothing under a Lambda deadline: the lease already covers the invocation', async () => {
    const journal = new MemoryJournal();
    const beats = countingHeartbeats(journal);
    const guard = plainGuard(journal, { leaseMs: 150 });

    await guard.handle(plainRequest('k4', { getRemainingTimeInMillis: () => 10_000 }), async () => {
      await sleep(200);
      return { kind: 'returned', response: created('{}') };
    });

    expect(beats.count()).toBe(0);
  });

  it('refuses a response too large to capture whole: response-too-large for the first caller and every retry, never run again', async () => {
    const guard = plainGuard(new MemoryJournal());
    let runs = 0;
    const huge = async () => {
      runs++;
      return { kind: 'returned', response: new OversizedResponse(200, 7_000_000) } as const;
    };

    const first = await guard.handle(plainRequest('k5'), huge);
    const retry = await guard.handle(plainRequest('k5'), huge);

    for (const answer of [first, retry]) {
      expect(answer).toMatchObject({ kind: 'answer', response: { statusCode: 500 } });
      const { body } = (answer as { response: HttpResponse }).response;
      expect(JSON.parse(body ?? '')).toMatchObject({ type: 'urn:idemkit:problem:response-too-large' });
    }
    expect(runs).toBe(1);
  });
});
