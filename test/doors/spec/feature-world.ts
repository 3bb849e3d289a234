import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import express from 'express';
import { createServer, type Server } from 'node:http';
import { DynamoDBJournal } from '../../../src/index.js';
import { idempotency } from '../../../src/entries/express.js';
import { requestPk } from '../../../src/entries/journal.js';
import { createJournalTable, localClient } from '../../support/dynamodb.js';

/**
 * The world the Gherkin features of the Express door run in: an app whose route (`/orders` in
 * our feature, `/api` in the idempot-js one) answers `{ success: true, order: <run>, body }` at
 * 200, each run of the handler numbered, guarded by `idempotency()` from `idemkit/express`,
 * served on 127.0.0.1, its journal a fresh DynamoDB Local table per scenario. The step
 * vocabularies (`ietf-draft-steps.ts`, `idempot-js-steps.ts`) map a step's text to the actions
 * and checks below.
 */

/** A response as the steps read it: status, headers by lower-case name, the body parsed as JSON when it is. */
export interface Received {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: Record<string, unknown> | undefined;
}

/** A step vocabulary: each step's pattern and what it does with the captured groups. */
export type StepTable = ReadonlyArray<readonly [RegExp, (world: FeatureWorld, ...args: string[]) => unknown]>;

/** One scenario's state: its journal, its server, the key it sends and what came back. */
export class FeatureWorld {
  journal: DynamoDBJournal;
  /** The key the idempot-js vocabulary's sends carry (ours names the key in each step). */
  key: string | undefined;
  /** The last answer received. */
  last: Received | undefined;
  /** Runs of the handler for a request that carried a key (the idempot-js feature's orders). */
  orders = 0;
  /** Runs of the handler, numbered from 1: a run's answer carries its number. */
  runs = 0;
  /** `ttlSeconds` of the guard, when a scenario sets it. */
  ttlSeconds: number | undefined;
  /** How far the guard's clock is ahead of the wall clock. */
  clockAheadMs = 0;
  private server: Server | undefined;
  private url = '';
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  private held: Promise<Received> | undefined;
  private readonly pending: Promise<unknown>[] = [];

  private constructor(
    readonly tableName: string,
    readonly client: ReturnType<typeof localClient>,
    private readonly steps: StepTable,
  ) {
    this.journal = new DynamoDBJournal({ tableName, client, clock: this.clock });
  }

  /** The clock of the guard and of its journal (each decides expiry by its own): the wall clock, moved ahead by the scenario. */
  private readonly clock = (): number => Date.now() + this.clockAheadMs;

  /** A world on a fresh journal table, reading steps with `steps`. */
  static async create(steps: StepTable): Promise<FeatureWorld> {
    const client = localClient();
    return new FeatureWorld(await createJournalTable(client, 'feature'), client, steps);
  }

  /** Lets a held request finish and stops the server. */
  async close(): Promise<void> {
    this.openGate?.();
    await Promise.allSettled(this.pending);
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** Runs one step, by its text: a step no definition matches, or more than one, fails the scenario. */
  async step(text: string): Promise<void> {
    const matches = this.steps.flatMap(([pattern, run]) => {
      const match = pattern.exec(text);
      return match ? [() => run(this, ...match.slice(1).filter((group) => group !== undefined))] : [];
    });
    if (matches.length !== 1) throw new Error(`${matches.length} step definitions match "${text}"`);
    await matches[0]!();
  }

  /** Serves the app again, on the journal and options of this moment. */
  async restart(): Promise<void> {
    if (!this.server) return;
    await this.close();
    await this.start();
  }

  private async start(): Promise<void> {
    const app = express();
    const guard = idempotency({
      journal: this.journal,
      ttlSeconds: this.ttlSeconds,
      clock: this.clock,
    });
    app.all(['/api', '/orders'], guard, express.json(), async (req, res) => {
      const run = ++this.runs;
      await this.gate;
      if (req.get('idempotency-key') !== undefined) this.orders++;
      res.json({ success: true, order: run, body: req.body ?? {} });
    });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  /** Sends a request; `key` undefined sends no key header, any string (empty included) is sent as it is. */
  async send(method: string, path: string, body: unknown, key = this.key): Promise<Received> {
    if (!this.server) await this.start();
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key !== undefined) headers['idempotency-key'] = key;
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /**
   * Makes the journal a real refused connection: DynamoDB at loopback port 9 (discard, privileged, so no test's server
   * can be listening there, as one handed a free port could), one attempt.
   */
  async loseJournal(): Promise<void> {
    const down = localClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });
    this.journal = new DynamoDBJournal({ tableName: this.tableName, client: down, clock: this.clock });
    await this.restart();
  }

  /** Sends a request the handler holds until {@link finishHeld}, and waits until the handler has it. */
  async hold(method: string, path: string, body: unknown, key: string): Promise<void> {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
    const before = this.runs;
    this.held = this.send(method, path, body, key);
    this.pending.push(this.held);
    const until = Date.now() + 10_000;
    while (this.runs === before) {
      if (Date.now() > until) throw new Error('The held request never reached the handler');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Lets the held request finish; its answer becomes the last one. */
  async finishHeld(): Promise<void> {
    if (!this.held) throw new Error('No request is held');
    this.openGate?.();
    this.gate = undefined;
    this.last = await this.held;
    this.held = undefined;
  }

  received(): Received {
    if (!this.last) throw new Error('No response received yet');
    return this.last;
  }

  /** The journal's request records whose key is `key`, whatever their scope. */
  async recordsOf(key: string): Promise<Record<string, unknown>[]> {
    const out = await this.client.send(new ScanCommand({ TableName: this.tableName, ConsistentRead: true }));
    return (out.Items ?? [])
      .map((item) => unmarshall(item))
      .filter((item) => typeof item.pk === 'string' && item.pk.startsWith('req#') && item.pk.endsWith(`#${key}`));
  }

  /** The stored response of `key` for `operation` (`POST /orders`): `{ statusCode, headers, body }`. */
  async storedResponse(operation: string, key: string): Promise<{ statusCode?: number; body?: string }> {
    const record = await this.journal.get(requestPk('-', operation, key));
    if (!record?.response) throw new Error(`No completed record for the key under ${operation}`);
    return record.response.value as { statusCode?: number; body?: string };
  }
}
