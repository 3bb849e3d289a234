export {
  legacyLookupFor,
  loadPowertoolsSearch,
  powertoolsPayloadHash,
  powertoolsRecordId,
} from './powertools-record.js';
export {
  resolveMigrateFrom,
  type MigrateFromOptions,
  type PowertoolsAttributeNames,
  type PowertoolsMigrationOptions,
  type PowertoolsSearch,
  type PowertoolsSource,
} from './powertools-options.js';
