import type { SQSRecord } from 'aws-lambda';

/** The message group of a FIFO record, undefined on a standard queue. */
export function messageGroupOf(record: SQSRecord): string | undefined {
  return record.attributes?.MessageGroupId || undefined;
}

/**
 * Splits a batch into lanes that must run in order: one lane per message group on a FIFO
 * queue (batch order kept inside it), one lane per record on a standard queue.
 */
export function lanesOf(records: readonly SQSRecord[]): SQSRecord[][] {
  const lanes: SQSRecord[][] = [];
  const byGroup = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const group = messageGroupOf(record);
    if (group === undefined) {
      lanes.push([record]);
      continue;
    }
    let lane = byGroup.get(group);
    if (!lane) {
      lane = [];
      byGroup.set(group, lane);
      lanes.push(lane);
    }
    lane.push(record);
  }
  return lanes;
}

/** Runs `work` over `items` with at most `concurrency` in flight, starting them in order. */
export async function forEachBounded<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
