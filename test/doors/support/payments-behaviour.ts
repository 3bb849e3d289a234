import { Readable } from 'node:stream';
import type { IdempotencyScope } from '../../../src/index.js';

/** What a refund route answers, for a door's app to send the way its framework sends. */
export interface RefundAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** JSON to send with the framework's JSON helper (`res.json`, `c.json`, `reply.send`). */
  readonly json?: unknown;
  /** Bytes to send as they are. */
  readonly bytes?: Buffer;
  /** A stream to send (piped, or returned as the reply's payload). */
  readonly stream?: Readable;
}

/** Bytes 0–255 twice: not UTF-8, so they can only come back byte for byte from a base64 record. */
export const BINARY_BODY = Buffer.from([...Array(512).keys()].map((i) => i % 256));
/** Past the 6 MB a door captures. */
export const OVERSIZED_BYTES = 6 * 1024 * 1024 + 1;

/**
 * The one route every door's app serves, `POST /payments/:id/refunds`: it counts its runs and
 * answers by what the body asks for, so the same suite runs through every door.
 */
export class PaymentsBehaviour {
  runs = 0;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  /** Makes every run wait until {@link release}. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  async refund(scope: IdempotencyScope, id: string, body: Record<string, unknown> | undefined): Promise<RefundAnswer> {
    this.runs++;
    const run = this.runs;
    await this.gate;
    if (typeof body?.delayMs === 'number') await new Promise((resolve) => setTimeout(resolve, body.delayMs as number));
    if (body?.fail) throw new Error('the payment rail is down');
    if (typeof body?.claim === 'string') await scope.holdUnique('refund-of', body.claim);
    const headers = { location: `/payments/${id}/refunds/r_${run}`, 'set-cookie': 'session=1', 'x-run': String(run) };
    if (body?.binary)
      return { status: 201, headers: { ...headers, 'content-type': 'application/octet-stream' }, bytes: BINARY_BODY };
    if (body?.oversized)
      return {
        status: 201,
        headers: { ...headers, 'content-type': 'text/plain' },
        bytes: Buffer.alloc(OVERSIZED_BYTES, 97),
      };
    if (body?.stream)
      return {
        status: 201,
        headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' },
        stream: Readable.from(['refund ', `r_${run} `, 'streamed ✓'].map((part) => Buffer.from(part))),
      };
    return { status: 201, headers, json: { refund: `r_${run}`, payment: id, key: scope.key, amount: body?.amount } };
  }
}
