export { legacyLookupFor, powertoolsPayloadHash, powertoolsRecordId } from './powertools-record.js';
export {
  resolveMigrateFrom,
  type MigrateFromOptions,
  type PowertoolsAttributeNames,
  type PowertoolsMigrationOptions,
  type PowertoolsSource,
} from './powertools-options.js';
