/**
 * The leaf every other module may import: the error hierarchy and its codes, the journal
 * record model, the key rule, hashing and the option validator. It imports nothing of the
 * toolkit itself.
 */
export * from './errors.js';
export * from './journal-record.js';
export { keyProblem, MAX_KEY_LENGTH } from './idempotency-key.js';
export { lambdaTenantOf, NO_TENANT, scopePart } from './scope-part.js';
export { sha256Hex } from './hash.js';
export {
  assertKnownOptions,
  readBoolean,
  readClient,
  readTableName,
  readFunction,
  readNumber,
  readOneOf,
  readString,
  required,
  type NumberRule,
} from './options.js';
export { constructGivenName, IdemkitEnvironment, type IdemkitEnvironmentName } from './environment.js';
