export { legacyLookupFor, PowertoolsRecordReader } from './powertools-record.js';
export {
  resolveMigrateFrom,
  type MigrateFromOptions,
  type PowertoolsAttributeNames,
  type PowertoolsMigrationOptions,
  type PowertoolsSource,
} from './powertools-options.js';
export { powertoolsPayloadHash, powertoolsRecordId } from './powertools-key.js';
