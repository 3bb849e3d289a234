export {
  fromPowertools,
  loadPowertoolsSearch,
  PowertoolsRecordReader,
  powertoolsPayloadHash,
  powertoolsRecordId,
} from './powertools-record.js';
export {
  resolvePowertoolsSource,
  type PowertoolsAttributeNames,
  type PowertoolsMigrationOptions,
  type PowertoolsSearch,
  type PowertoolsSource,
} from './powertools-options.js';
