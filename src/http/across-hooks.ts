/** How an attempt started across Middy's hooks stands once the `before` hook must return. */
export type StartedAcrossHooks<TScope, TOutcome, TResult> =
  | { readonly kind: 'ended'; readonly result: TResult }
  | { readonly kind: 'running'; readonly scope: TScope; readonly handOver: HandOver<TOutcome, TResult> };

/** What the `after` and `onError` hooks hand back to an attempt waiting for its handler. */
export interface HandOver<TOutcome, TResult> {
  /** The handler returned: the attempt goes on with its outcome; resolves (or rejects) with the attempt's end. */
  returned(outcome: TOutcome): Promise<TResult>;
  /** The handler threw: the attempt ends with that error; resolves once it has. */
  threw(error: unknown): Promise<void>;
}

/**
 * Lets one engine call that owns a whole attempt — `run(invoke)`, where `invoke` runs the
 * handler — span Middy's `before` → handler → `after`/`onError`: in a middleware the handler is
 * not a function the engine can call, so `invoke` resolves when a later hook hands over what the
 * handler did. Resolves as soon as the attempt either asks for the handler (`running`: return
 * from `before` and let it run) or ends without it (`ended`: answer from `before`); rejects when
 * the attempt fails before the handler.
 *
 * @example
 * const started = await startAcrossHooks((invoke) => engine.runStagedOnly(request, invoke, trace));
 * if (started.kind === 'ended') return answerFrom(started.result);
 */
export async function startAcrossHooks<TScope, TOutcome, TResult>(
  run: (invoke: (scope: TScope) => Promise<TOutcome>) => Promise<TResult>,
): Promise<StartedAcrossHooks<TScope, TOutcome, TResult>> {
  let handler!: { resolve: (outcome: TOutcome) => void; reject: (error: unknown) => void };
  const handlerDone = new Promise<TOutcome>((resolve, reject) => (handler = { resolve, reject }));
  let invoked!: (scope: TScope) => void;
  const handlerWanted = new Promise<TScope>((resolve) => (invoked = resolve));
  const attempt = run((scope) => {
    invoked(scope);
    return handlerDone;
  });
  const first = await Promise.race([
    handlerWanted.then((scope) => ({ kind: 'running' as const, scope })),
    attempt.then((result) => ({ kind: 'ended' as const, result })),
  ]);
  if (first.kind === 'ended') return first;
  // Whoever hands the outcome over awaits the attempt; until then its rejection must not go unhandled.
  attempt.catch(() => undefined);
  return {
    kind: 'running',
    scope: first.scope,
    handOver: {
      returned(outcome) {
        handler.resolve(outcome);
        return attempt;
      },
      async threw(error) {
        handler.reject(error);
        await attempt.catch(() => undefined);
      },
    },
  };
}
