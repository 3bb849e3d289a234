/**
 * `idemkit/migration`: moving from another idempotency library without a double-execution
 * window. `fromPowertools` builds the `migrateFrom` option of `httpIdempotency` and
 * `makeIdempotent`, which reads the records `@aws-lambda-powertools/idempotency` 2.x keeps while
 * the cut-over lasts. An entry of its own, so a guard without a migration never bundles it (nor
 * Powertools' JMESPath).
 *
 * @packageDocumentation
 */
export { fromPowertools, type PowertoolsAttributeNames, type PowertoolsMigrationOptions } from '../migration/index.js';
export type { MigrationSource } from '../engine/index.js';
