import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { StreamTee, type StreamEnding } from '../../../src/http/streamed-response.js';
import { ResponseTooLargeError } from '../../../src/index.js';

/** A source of `parts`, one every few milliseconds. */
function slowSource(parts: readonly string[]): Readable {
  return Readable.from(
    (async function* () {
      for (const part of parts) {
        await sleep(5);
        yield part;
      }
    })(),
  );
}

function collector() {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
  return { sink, text: () => Buffer.concat(chunks).toString() };
}

describe('StreamTee: a streamed body passed through while its bytes are kept', () => {
  it('ends the caller’s body only once the record is settled', async () => {
    const events: string[] = [];
    const tee = new StreamTee(slowSource(['a', 'b']), async (ending) => {
      await sleep(20);
      events.push(`settled ${ending.kind}`);
      return undefined;
    });
    const { sink, text } = collector();

    await pipeline(tee.output, sink);
    events.push('caller done');

    expect(text()).toBe('ab');
    expect(events).toEqual(['settled ended', 'caller done']);
  });

  it('keeps reading the source to its end when the caller’s stream is closed early', async () => {
    let ending: StreamEnding | undefined;
    const tee = new StreamTee(slowSource(['a', 'b', 'c', 'd']), async (end) => {
      ending = end;
      return undefined;
    });
    tee.output.once('data', () => tee.output.destroy());

    await tee.settled;

    expect(ending).toEqual({ kind: 'ended', bytes: Buffer.from('abcd') });
  });

  it('ends the caller’s body with the error the settlement answers', async () => {
    const refusal = new Error('not stored');
    const tee = new StreamTee(slowSource(['a']), async () => refusal);
    const { sink, text } = collector();

    await expect(pipeline(tee.output, sink)).rejects.toBe(refusal);
    expect(text()).toBe('a');
  });

  it('settles a source that errors as failed, with its error', async () => {
    const broken = new Error('reset');
    const source = Readable.from(
      (async function* () {
        yield 'a';
        throw broken;
      })(),
    );
    let ending: StreamEnding | undefined;
    const tee = new StreamTee(source, async (end) => {
      ending = end;
      return end.kind === 'failed' ? (end.error as Error) : undefined;
    });

    await expect(pipeline(tee.output, collector().sink)).rejects.toBe(broken);
    expect(ending).toEqual({ kind: 'failed', error: broken });
  });

  it('stops a source past the capture limit without sending its last chunk, as ResponseTooLargeError', async () => {
    const part = Buffer.alloc(4 * 1024 * 1024, 'x');
    let reads = 0;
    const source = new Readable({
      read() {
        reads++;
        this.push(part);
      },
      highWaterMark: 1,
    });
    let ending: StreamEnding | undefined;
    const tee = new StreamTee(source, async (end) => {
      ending = end;
      return end.kind === 'failed' ? (end.error as Error) : undefined;
    });
    let sentBytes = 0;
    let callerError: unknown;
    tee.output.on('data', (chunk: Buffer) => (sentBytes += chunk.byteLength));
    tee.output.on('error', (error) => (callerError = error));

    await tee.settled;
    await sleep(0);

    expect(ending?.kind).toBe('failed');
    expect((ending as { error: unknown }).error).toBeInstanceOf(ResponseTooLargeError);
    expect(callerError).toBe((ending as { error: unknown }).error);
    expect(sentBytes).toBe(part.byteLength);
    expect(source.destroyed).toBe(true);
    expect(reads).toBeLessThan(5);
  });
});
