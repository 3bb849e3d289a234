import { Command, CommanderError } from 'commander';
import { stuckTable, timeline, Operator } from './operator.js';
import { IdemkitEnvironment, InvalidOptionsError } from '../core/index.js';

/** Where the CLI writes. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** What the CLI says about itself. */
export interface CliInfo {
  /**
   * What `idemkit --version` prints.
   * @default - no `--version` option
   */
  readonly version?: string;
}

/**
 * Runs the operator CLI with `argv` (without `node` and the script) and returns its exit code.
 *
 * @example await runCli(['stuck', '--table', 'journal']) // 0
 * @example await runCli(['--version'], undefined, { version: '0.1.0' }) // prints 0.1.0, 0
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = { out: (t) => console.log(t), err: (t) => console.error(t) },
  info: CliInfo = {},
): Promise<number> {
  const program = new Command('idemkit')
    .description('Inspect and resolve idempotency records')
    .option('-t, --table <name>', 'journal table name (default: $IDEMKIT_TABLE_NAME)')
    .option('--endpoint <url>', 'DynamoDB endpoint, for DynamoDB Local (default: $AWS_ENDPOINT_URL_DYNAMODB)')
    .option('--region <region>', 'AWS region (default: $AWS_REGION)')
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.out(t.trimEnd()), writeErr: (t) => io.err(t.trimEnd()) });
  if (info.version !== undefined) program.version(info.version, '-V, --version', 'print the installed version');

  /** Set by a command that printed its output yet must fail. */
  let exitCode = 0;
  const operator = () => {
    const opts = program.opts<{ table?: string; endpoint?: string; region?: string }>();
    const tableName = opts.table ?? process.env[IdemkitEnvironment.tableName];
    if (!tableName) throw new InvalidOptionsError(`No table: pass --table or set ${IdemkitEnvironment.tableName}`);
    return new Operator({
      tableName,
      endpoint: opts.endpoint ?? process.env.AWS_ENDPOINT_URL_DYNAMODB,
      region: opts.region,
    });
  };

  program
    .command('inspect')
    .description('show one record as a timeline: attempts, lease, evidence, outcome')
    .argument('<pk>', "the record's partition key, e.g. 'req#tenant#POST /payments#key'")
    .action(async (pk: string) => io.out(timeline(await operator().inspect(pk), Date.now())));

  program
    .command('stuck')
    .description(
      'list records whose lease expired without an outcome, and UNKNOWN records; ' +
        'one that cannot be read is named on stderr and the exit code is 1',
    )
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const { records, unreadable } = await operator().stuck();
      io.out(options.json ? JSON.stringify(records, null, 2) : stuckTable(records));
      // Listed apart and failing the command: such a record may stand for an effect, and a script must notice it.
      for (const error of unreadable) io.err(`error: ${error.message}`);
      if (unreadable.length > 0) exitCode = 1;
    });

  program
    .command('resolve')
    .description('resolve an UNKNOWN record (or an expired lease) as completed or released')
    .argument('<pk>', "the record's partition key")
    .option('--completed <response>', 'mark completed; replays will return this JSON response')
    .option('--released', 'delete the record so the next retry runs the handler again')
    .option('--ttl-seconds <n>', 'how long a completed outcome is replayed', '86400')
    .action(async (pk: string, options: { completed?: string; released?: boolean; ttlSeconds: string }) => {
      if (Boolean(options.completed) === Boolean(options.released))
        throw new InvalidOptionsError('Pass exactly one of --completed <json> or --released');
      const ttlSeconds = Number(options.ttlSeconds);
      if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1)
        throw new InvalidOptionsError('--ttl-seconds must be a positive integer');
      let response: unknown;
      if (options.completed !== undefined) {
        try {
          response = JSON.parse(options.completed);
        } catch {
          throw new InvalidOptionsError('--completed must be valid JSON, e.g. \'{"statusCode":201,"body":"..."}\'');
        }
      }
      await operator().resolve(
        pk,
        options.released ? { outcome: 'released' } : { outcome: 'completed', response, ttlSeconds },
      );
      io.out(`Resolved ${pk} as ${options.released ? 'released' : 'completed'}.`);
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    io.err(`error: ${(error as Error).message}`);
    return 1;
  }
}
