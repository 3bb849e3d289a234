export { makeIdempotent, type MakeIdempotentOptions } from './make-idempotent.js';
