/** Something scheduled to run at `atMs` of simulated time. */
export interface WheelEvent {
  readonly atMs: number;
  readonly run: () => void;
}

/** Width of one slot of the wheel. */
const SLOT_MS = 0.1;

/**
 * A queue of events in slots of 0.1 ms: events of one slot run in the order they were pushed,
 * slots in time order. Pushing and popping are O(1), which a storm of millions of journal calls
 * needs (a heap's O(log n) on hundreds of thousands of pending events is what made it slow);
 * the price is that events less than 0.1 ms apart may run out of time order, which no delay in
 * the model is fine enough to notice. Deterministic: same pushes, same order.
 *
 * @example
 * const wheel = new TimeWheel(); wheel.push({ atMs: 3, run }); wheel.pop()?.atMs // 3
 */
export class TimeWheel {
  readonly #slots: (WheelEvent[] | undefined)[] = [];
  #slot = 0;
  #index = 0;

  push(event: WheelEvent): void {
    // An event due in a slot already run joins the current one: time never goes back.
    const slot = Math.max(this.#slot, Math.floor(event.atMs / SLOT_MS));
    const events = this.#slots[slot];
    if (events === undefined) this.#slots[slot] = [event];
    else events.push(event);
  }

  pop(): WheelEvent | undefined {
    while (this.#slot < this.#slots.length) {
      const events = this.#slots[this.#slot];
      if (events !== undefined && this.#index < events.length) return events[this.#index++];
      this.#slots[this.#slot] = undefined;
      this.#slot += 1;
      this.#index = 0;
    }
    return undefined;
  }
}
