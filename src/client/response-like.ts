/**
 * The parts of a Fetch `Response` the retry client reads. Duck-typed so that responses from
 * another realm or another fetch implementation are recognised too.
 */
export interface ResponseLike {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body?: { cancel(reason?: unknown): Promise<void> } | null;
  clone(): { json(): Promise<unknown> };
}

/**
 * Whether `value` looks like a Fetch `Response`.
 *
 * @example
 * isResponseLike(await fetch(url)) // true
 */
export function isResponseLike(value: unknown): value is ResponseLike {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<ResponseLike>;
  return (
    typeof candidate.status === 'number' &&
    typeof candidate.headers?.get === 'function' &&
    typeof candidate.clone === 'function'
  );
}
