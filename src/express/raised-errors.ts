import { IdempotencyError } from '../core/index.js';
import type { IdempotencyScope } from '../engine/index.js';

/**
 * What a handler's scope raised. Express passes a handler's error to its error handlers, out of
 * the guard's sight: the guard sees the 5xx they send. The scope the handler reaches through
 * `idempotencyOf(req)` tells it which guard error the handler let through (a claim taken, the
 * journal down, its lease taken over), so that it answers that error as `httpIdempotency` does.
 */
export class RaisedErrors {
  private readonly last = new WeakMap<object, IdempotencyError>();

  /** `scope`, noting the guard errors its calls raise for `req`. */
  watch(req: object, scope: IdempotencyScope): IdempotencyScope {
    const note = (error: unknown): never => {
      if (error instanceof IdempotencyError) this.last.set(req, error);
      throw error;
    };
    const noted =
      <A extends unknown[], R>(call: (...args: A) => R) =>
      (...args: A): R => {
        try {
          const result = call(...args);
          return result instanceof Promise ? (result.catch(note) as R) : result;
        } catch (error) {
          return note(error);
        }
      };
    return {
      get key() {
        return scope.key;
      },
      get scope() {
        return scope.scope;
      },
      get attempt() {
        return scope.attempt;
      },
      get recovering() {
        return scope.recovering;
      },
      get evidence() {
        return scope.evidence;
      },
      beginEffect: noted((name?: string) => scope.beginEffect(name)),
      recordEvidence: noted((refs: Parameters<IdempotencyScope['recordEvidence']>[0]) => scope.recordEvidence(refs)),
      deriveKey: (label: string) => scope.deriveKey(label),
      stage: noted((...items: Parameters<IdempotencyScope['stage']>) => scope.stage(...items)),
      publish: noted((event: Parameters<IdempotencyScope['publish']>[0]) => scope.publish(event)),
      claimUnique: noted((name: string, value: string) => scope.claimUnique(name, value)),
      holdUnique: noted((name: string, value: string) => scope.holdUnique(name, value)),
      heartbeat: noted(() => scope.heartbeat()),
    };
  }

  /** The last guard error the scope of `req` raised, if any. */
  of(req: object): IdempotencyError | undefined {
    return this.last.get(req);
  }
}
