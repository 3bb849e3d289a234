import type fc from 'fast-check';

/**
 * Parameters of `fc.assert`: `numRuns`, and the seed (and path) of a failing run to replay
 * from `FC_SEED` (and `FC_PATH`), as printed by fast-check when a property fails.
 * `FC_VERBOSE=1` also lists every failure met while shrinking.
 */
export function propertyParameters(numRuns: number): fc.Parameters<unknown> {
  const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
  return {
    numRuns,
    verbose: process.env.FC_VERBOSE ? 1 : 0,
    ...(seed === undefined ? {} : { seed }),
    ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
  };
}
