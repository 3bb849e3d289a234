/** Something scheduled to happen at `atMs` of simulated time. */
export interface TimedEvent {
  readonly atMs: number;
}

/**
 * A min-heap of events by time; events due at the same time come out in the order they were
 * pushed, which keeps a seeded simulation deterministic.
 *
 * @example
 * const queue = new EventQueue<{ atMs: number }>(); queue.push({ atMs: 5 }); queue.pop() // { atMs: 5 }
 */
export class EventQueue<E extends TimedEvent> {
  readonly #heap: { readonly event: E; readonly order: number }[] = [];
  #pushed = 0;

  get size(): number {
    return this.#heap.length;
  }

  push(event: E): void {
    this.#heap.push({ event, order: this.#pushed++ });
    let child = this.#heap.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.#before(child, parent)) break;
      this.#swap(child, parent);
      child = parent;
    }
  }

  pop(): E | undefined {
    const top = this.#heap[0];
    const last = this.#heap.pop();
    if (top === undefined || last === undefined || this.#heap.length === 0) return top?.event;
    this.#heap[0] = last;
    let parent = 0;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let first = parent;
      if (left < this.#heap.length && this.#before(left, first)) first = left;
      if (right < this.#heap.length && this.#before(right, first)) first = right;
      if (first === parent) return top.event;
      this.#swap(parent, first);
      parent = first;
    }
  }

  #before(a: number, b: number): boolean {
    const x = this.#heap[a]!;
    const y = this.#heap[b]!;
    return x.event.atMs < y.event.atMs || (x.event.atMs === y.event.atMs && x.order < y.order);
  }

  #swap(a: number, b: number): void {
    [this.#heap[a], this.#heap[b]] = [this.#heap[b]!, this.#heap[a]!];
  }
}
