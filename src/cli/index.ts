export { runCli, type CliInfo, type CliIo } from './run-cli.js';
export { Operator, type OperatorTarget, type StuckList, type StuckRecord } from './operator.js';
