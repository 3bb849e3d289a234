import type { Journal } from '../journal/index.js';

/**
 * Concurrent attempts of one key in one process share one journal call and its answer. A retry storm on a hot key (a
 * webhook redelivered by every worker of a sender, a mobile app retrying in a loop) otherwise makes one call per
 * attempt, all on one partition, all answered alike. Only calls whose answer is the same for every caller may be
 * shared, and a caller that joins another's call gets what it would have got had it called a moment later:
 * - `reserve`: one conditional write can be won by one caller; the others lose to it, so a joiner gets the record the
 *   leader reserved or found as "found" (`reserved: false`) and decides on it with its own fingerprint (another
 *   payload is still 422, the same payload 409 or a replay);
 * - `get`: a read, the same for everyone;
 * - `takeOver` and `markAbandonedUnknown`: fenced on the token read, so one caller lands them and the others lose with
 *   `LeaseLostError` and read again.
 * A joiner gets its own deep copy of the answer, so nothing one attempt does to a record or a stored response reaches
 * another. Flights are kept per journal instance and keyed by the record's `pk`, which holds the tenant and the
 * scope, so attempts of different tenants or operations never meet.
 */
export class SingleFlight {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  /**
   * Runs `call` unless a call with the same `flightKey` is in flight, whose answer is then shared.
   *
   * @returns the answer, and `own`: true when this caller's `call` made it (the leader's, or a joiner's whose copy
   *   cannot be made, an answer holding something `structuredClone` refuses), false for a copy of another's answer
   */
  async share<T>(flightKey: string, call: () => Promise<T>): Promise<{ readonly own: boolean; readonly answer: T }> {
    const running = this.inFlight.get(flightKey) as Promise<T> | undefined;
    if (running) {
      const answer = await running;
      try {
        return { own: false, answer: structuredClone(answer) };
      } catch {
        return { own: true, answer: await call() };
      }
    }
    const answer = call();
    this.inFlight.set(flightKey, answer);
    const landed = () => {
      if (this.inFlight.get(flightKey) === answer) this.inFlight.delete(flightKey);
    };
    answer.then(landed, landed);
    return { own: true, answer: await answer };
  }
}

const flights = new WeakMap<Journal, SingleFlight>();

/** The flights of one journal instance, shared by every guard of the process that uses it. */
export function flightsOf(journal: Journal): SingleFlight {
  let found = flights.get(journal);
  if (!found) {
    found = new SingleFlight();
    flights.set(journal, found);
  }
  return found;
}
