export { strongConsistency } from './strong-consistency.js';
