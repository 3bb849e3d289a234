/** Throughput one partition key value may use. */
export interface PartitionLimits {
  readonly writeUnitsPerSecond: number;
  readonly readUnitsPerSecond: number;
}

/**
 * DynamoDB's documented ceiling for one partition key value: 1,000 write units and 3,000 read
 * units a second, whatever the table's mode or provisioned capacity.
 */
export const PARTITION_LIMITS: PartitionLimits = Object.freeze({
  writeUnitsPerSecond: 1_000,
  readUnitsPerSecond: 3_000,
});

/** What one second of the hot key saw. Indexed by whole second of simulated time. */
export interface PartitionSecond {
  /** Write units of the calls the partition served. */
  readonly consumedWriteUnits: number;
  /** Read units of the calls the partition served. */
  readonly consumedReadUnits: number;
  /** Write units of every call that reached the partition, throttled ones included: the demand. */
  readonly offeredWriteUnits: number;
  /** Calls answered with a throttle (they cost nothing). */
  readonly throttledCalls: number;
  /** Calls that reached the partition, throttled or not. */
  readonly calls: number;
}

interface MutableSecond {
  consumedWriteUnits: number;
  consumedReadUnits: number;
  offeredWriteUnits: number;
  throttledCalls: number;
  calls: number;
}

/**
 * One partition key value's throughput as a token bucket refilled once a second: every whole
 * second of simulated time starts with the full allowance and nothing carries over (no burst
 * credit, which DynamoDB keeps per table, not per key). A call that does not fit in what is left
 * of its second is throttled and costs nothing, as DynamoDB bills a throttled request nothing.
 *
 * @example
 * const partition = new HotPartition(); partition.tryServe(12, { writeUnits: 1, readUnits: 0 }) // true
 */
export class HotPartition {
  readonly #limits: PartitionLimits;
  readonly #seconds: MutableSecond[] = [];

  constructor(limits: PartitionLimits = PARTITION_LIMITS) {
    this.#limits = limits;
  }

  /** Serves a call arriving at `atMs` if its second has room for its units; false means throttled. */
  tryServe(atMs: number, units: { readonly writeUnits: number; readonly readUnits: number }): boolean {
    const second = this.#second(Math.floor(atMs / 1000));
    second.calls += 1;
    second.offeredWriteUnits += units.writeUnits;
    const fits =
      second.consumedWriteUnits + units.writeUnits <= this.#limits.writeUnitsPerSecond &&
      second.consumedReadUnits + units.readUnits <= this.#limits.readUnitsPerSecond;
    if (!fits) {
      second.throttledCalls += 1;
      return false;
    }
    second.consumedWriteUnits += units.writeUnits;
    second.consumedReadUnits += units.readUnits;
    return true;
  }

  /** Every second from 0 to the last one a call reached, quiet seconds included. */
  seconds(): readonly PartitionSecond[] {
    return Array.from({ length: this.#seconds.length }, (_, i) => ({ ...(this.#seconds[i] ?? emptySecond()) }));
  }

  #second(index: number): MutableSecond {
    this.#seconds[index] ??= emptySecond();
    return this.#seconds[index];
  }
}

function emptySecond(): MutableSecond {
  return { consumedWriteUnits: 0, consumedReadUnits: 0, offeredWriteUnits: 0, throttledCalls: 0, calls: 0 };
}
