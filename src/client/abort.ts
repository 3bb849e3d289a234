/**
 * Resolves after `delayMs`, or rejects with `signal.reason` as soon as `signal` aborts. The
 * timer is cleared on abort, so an abandoned wait never keeps a process alive.
 *
 * @example
 * await sleepMs(250, controller.signal)
 */
export function sleepMs(delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles like `promise`, unless `signal` aborts first: then rejects with its reason at once,
 * without waiting for `promise` (which may be an injected sleep or a call that ignores signals).
 *
 * @example
 * const result = await untilAborted(fn(attempt), signal)
 */
export function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    // The abandoned promise may still reject; observe it so it is not reported as unhandled.
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A signal for one attempt and the function that releases its timer and listener. */
export interface AttemptSignal {
  readonly signal: AbortSignal;
  readonly dispose: () => void;
}

/**
 * A signal that aborts when `parent` aborts (with the parent's reason) or when `timeoutMs`
 * passes (with a `TimeoutError`, which the default classifier retries).
 *
 * Built by hand rather than with `AbortSignal.any`/`AbortSignal.timeout` so it runs on older
 * browsers and follows whatever timers the caller's environment (or a test) provides.
 *
 * @example
 * const { signal, dispose } = attemptSignal(init.signal, 5_000)
 * try { return await fetch(url, { ...init, signal }) } finally { dispose() }
 */
export function attemptSignal(parent: AbortSignal | undefined, timeoutMs: number): AttemptSignal {
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(parent?.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const timer = Number.isFinite(timeoutMs)
    ? setTimeout(
        () => controller.abort(new DOMException(`Attempt timed out after ${timeoutMs} ms`, 'TimeoutError')),
        timeoutMs,
      )
    : undefined;
  const dispose = (): void => {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  };
  return { signal: controller.signal, dispose };
}
