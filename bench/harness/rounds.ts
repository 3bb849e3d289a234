/**
 * Runs `rounds` rounds; each runs `step` once per participant, the order flipping every round
 * (AB BA AB ...), so drift of a shared, noisy machine lands on every participant alike.
 */
export async function alternate<T>(
  participants: readonly T[],
  rounds: number,
  step: (participant: T, round: number) => Promise<void>,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? participants : [...participants].reverse();
    for (const participant of order) await step(participant, round);
  }
}

/** Runs `count` tasks with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** A promise with its resolver, to hold a handler inside its effect. */
export function gate(): { readonly opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
