/**
 * The conformance suite's assertions. They belong to no test framework (the suite runs under
 * node:test, Jest or Vitest alike): each throws a plain `Error` whose message says which storage
 * call was made, what the contract expects, and what came back, so a journal author reads the
 * failure without opening the suite.
 */

/** Longest rendering of one value in a failure message: a 300 KB response must not flood the report. */
const SHOWN_MAX_CHARS = 240;

/**
 * A value as a failure message shows it: JSON-like, one line, long strings and large values cut
 * with their length noted.
 *
 * @example shown({ status: 'COMPLETED' }) // '{"status":"COMPLETED"}'
 */
export function shown(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  let text: string;
  try {
    text =
      JSON.stringify(value, (_key, inner: unknown) => (inner === undefined ? '<undefined>' : inner)) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length <= SHOWN_MAX_CHARS ? text : `${text.slice(0, SHOWN_MAX_CHARS)}… (${text.length} chars)`;
}

/**
 * Structural equality as a reader of the journal means it: primitives by `Object.is` (but `0` equals
 * `-0`), arrays element by element, plain objects key by key, where a key holding `undefined` is the
 * same as a missing key (one journal spells an absent attribute `effectName: undefined`, another
 * leaves it out), and byte arrays byte by byte.
 */
export function sameValue(actual: unknown, expected: unknown): boolean {
  if (actual === expected || (Number.isNaN(actual) && Number.isNaN(expected))) return true;
  if (typeof actual !== 'object' || typeof expected !== 'object' || actual === null || expected === null) return false;
  if (actual instanceof Uint8Array || expected instanceof Uint8Array) {
    return (
      actual instanceof Uint8Array &&
      expected instanceof Uint8Array &&
      actual.byteLength === expected.byteLength &&
      actual.every((byte, i) => byte === expected[i])
    );
  }
  if (Array.isArray(actual) !== Array.isArray(expected)) return false;
  if (Array.isArray(actual)) {
    const other = expected as unknown[];
    return actual.length === other.length && actual.every((item, i) => sameValue(item, other[i]));
  }
  const a = actual as Record<string, unknown>;
  const b = expected as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => sameValue(a[key], b[key]));
}

/** The first path at which two values differ (`response.value.items[3]`), for a message that points at it. */
function firstDifference(actual: unknown, expected: unknown, path: string): string {
  if (sameValue(actual, expected)) return path;
  const bothObjects =
    typeof actual === 'object' && typeof expected === 'object' && actual !== null && expected !== null;
  if (!bothObjects || actual instanceof Uint8Array || Array.isArray(actual) !== Array.isArray(expected)) return path;
  const a = actual as Record<string, unknown>;
  const b = expected as Record<string, unknown>;
  const key = [...new Set([...Object.keys(a), ...Object.keys(b)])].find((name) => !sameValue(a[name], b[name]));
  if (key === undefined) return path;
  return firstDifference(a[key], b[key], Array.isArray(actual) ? `${path}[${key}]` : `${path}.${key}`);
}

/**
 * Fails unless `actual` is structurally `expected` (see {@link sameValue}).
 *
 * @param call the storage call and its situation: `reserve() of a key another attempt holds`
 * @param what what of its answer is checked: `record.leaseToken`
 * @example assertSame('reserve() of a new key', 'record.attempt', result.record.attempt, 1)
 */
export function assertSame(call: string, what: string, actual: unknown, expected: unknown): void {
  if (sameValue(actual, expected)) return;
  const at = firstDifference(actual, expected, what);
  const detail =
    at === what
      ? ''
      : ` (first difference at ${at}: expected ${shown(pathValue(expected, at, what))}, got ${shown(pathValue(actual, at, what))})`;
  throw new Error(`${call}: ${what} should be ${shown(expected)}, got ${shown(actual)}${detail}`);
}

/** The value at `path` below `root` (both as {@link firstDifference} spells them). */
function pathValue(value: unknown, path: string, root: string): unknown {
  const steps = path.slice(root.length).match(/[^.[\]]+/g) ?? [];
  return steps.reduce<unknown>((inner, step) => (inner as Record<string, unknown> | undefined)?.[step], value);
}

/**
 * Fails unless two texts are the same, character for character; the message gives both lengths and
 * the first place they differ, instead of two texts too long to compare by eye.
 *
 * @example assertSameText('complete(), then get()', 'the JSON of the response', JSON.stringify(got), JSON.stringify(sent))
 */
export function assertSameText(call: string, what: string, actual: string, expected: string): void {
  if (actual === expected) return;
  let at = 0;
  while (actual[at] === expected[at]) at++;
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 20), at + 40));
  throw new Error(
    `${call}: ${what} should be ${expected.length} chars, got ${actual.length}, first different at char ${at}: ` +
      `expected …${around(expected)}…, got …${around(actual)}…`,
  );
}

/**
 * Fails unless `condition` holds.
 *
 * @param call the storage call and its situation
 * @param expectation what the contract expects, in words: `exactly one of 8 concurrent reserves wins`
 * @param actual what came back, shown in the message
 * @example assertThat('reserve() ×8 at once', 'exactly one wins', winners.length === 1, winners.length)
 */
export function assertThat(call: string, expectation: string, condition: boolean, actual: unknown): void {
  if (!condition) throw new Error(`${call}: expected ${expectation}, got ${shown(actual)}`);
}

/**
 * The value of a storage call the contract says succeeds; an error it throws fails the case with
 * the call named and the journal's error as `cause`.
 *
 * @example const record = await succeeds('takeOver() of an ended lease', journal.takeOver(request));
 */
export async function succeeds<T>(call: string, promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw new Error(`${call}: expected it to succeed, it threw ${shown(error)}`, { cause: error });
  }
}

/** A class of error the contract names (`LeaseLostError`, `UniqueConflictError`...). */
export type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/**
 * The error a storage call the contract says is refused throws, checked with `instanceof`; a call
 * that succeeds, or throws another error, fails the case.
 *
 * @example const lost = await refusedWith('complete() with a stale token', journal.complete(c), LeaseLostError);
 */
export async function refusedWith<E extends Error>(
  call: string,
  promise: Promise<unknown>,
  type: ErrorClass<E>,
): Promise<E> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    if (error instanceof type) return error;
    throw new Error(`${call}: expected ${type.name}, it threw ${shown(error)}`, { cause: error });
  }
  throw new Error(`${call}: expected ${type.name}, it succeeded with ${shown(value)}`);
}
