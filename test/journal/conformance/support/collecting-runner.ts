/**
 * A test runner of its own for the conformance suite: `describe` and `it` that record the cases
 * instead of handing them to Jest, and a `run` that runs each one and reports whether it passed
 * and, if not, its error. It lets a Jest test assert which cases of the suite fail.
 */

export interface CaseOutcome {
  /** The case's full name: its describe blocks and its own name, joined with ' > '. */
  readonly name: string;
  /** The error the case threw; undefined when it passed. */
  readonly error?: Error;
}

export interface CollectingRunner {
  readonly describe: (name: string, fn: () => void) => void;
  readonly it: (name: string, fn: () => Promise<void>) => void;
  readonly afterEach: (fn: () => Promise<void>) => void;
  /** The full names of the cases registered so far. */
  readonly names: () => string[];
  /** Runs every registered case one after the other (and the afterEach hooks after each). */
  run(): Promise<CaseOutcome[]>;
}

export function collectingRunner(): CollectingRunner {
  const path: string[] = [];
  const cases: { name: string; fn: () => Promise<void> }[] = [];
  const hooks: (() => Promise<void>)[] = [];
  return {
    describe(name, fn) {
      path.push(name);
      try {
        fn();
      } finally {
        path.pop();
      }
    },
    it(name, fn) {
      cases.push({ name: [...path, name].join(' > '), fn });
    },
    afterEach(fn) {
      hooks.push(fn);
    },
    names: () => cases.map((c) => c.name),
    async run() {
      const outcomes: CaseOutcome[] = [];
      for (const { name, fn } of cases) {
        let error: Error | undefined;
        try {
          await fn();
        } catch (thrown) {
          error = thrown instanceof Error ? thrown : new Error(String(thrown));
        }
        for (const hook of hooks) {
          try {
            await hook();
          } catch (thrown) {
            error ??= thrown instanceof Error ? thrown : new Error(String(thrown));
          }
        }
        outcomes.push({ name, error });
      }
      return outcomes;
    },
  };
}

/** The names of the cases that failed. */
export function failedNames(outcomes: readonly CaseOutcome[]): string[] {
  return outcomes.filter((outcome) => outcome.error).map((outcome) => outcome.name);
}
