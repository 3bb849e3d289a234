/**
 * Invokes a bundled Lambda handler locally, without Docker: the `index.mjs` that
 * NodejsFunction wrote into `cdk.out`, an event file, and a fake Lambda context.
 *
 *   npx tsx scripts/local-invoke.ts <function> <event.json> [options]
 *
 *   <function>            a logical id (or its unique prefix, or a path part such as
 *                         `Api/CreatePayment`) in the template, or a bundle file/directory
 *   --template <file>     default: cdk.out/PaymentsService.template.json
 *   --env KEY=VALUE       environment of the invocation (repeatable); literal variables of
 *                         the template are applied first, these win
 *   --timeout-ms <n>      default: the function's Timeout, else 30000
 *   --result-file <file>  also write the result (or error) there as JSON
 *
 * Point the SDK at local services with AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL_SQS.
 * Exit code 0 when the handler returned, 1 when it threw or timed out.
 */
import { localLambdaContext } from './local/lambda-context.js';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** What the runner needs to know about one function. */
export interface LocalFunction {
  readonly bundle: string;
  readonly handlerName: string;
  readonly functionName: string;
  readonly timeoutMs: number;
  readonly memoryMb: number;
  /** Literal environment variables of the template. */
  readonly environment: Record<string, string>;
  /** Template variables whose values are CloudFormation expressions (give them with --env). */
  readonly unresolved: string[];
}

interface TemplateFunction {
  Type: string;
  Metadata?: Record<string, string>;
  Properties: {
    Handler?: string;
    Timeout?: number;
    MemorySize?: number;
    Environment?: { Variables?: Record<string, unknown> };
  };
}

/** Finds a function in a synthesized template, or takes a bundle path as is. */
export function resolveFunction(target: string, templatePath: string): LocalFunction {
  if (existsSync(target)) {
    const bundle = statSync(target).isDirectory() ? join(target, 'index.mjs') : target;
    return {
      bundle: resolve(bundle),
      handlerName: 'handler',
      functionName: 'local',
      timeoutMs: 30_000,
      memoryMb: 512,
      environment: {},
      unresolved: [],
    };
  }
  const template = JSON.parse(readFileSync(templatePath, 'utf8')) as { Resources: Record<string, TemplateFunction> };
  const functions = Object.entries(template.Resources).filter(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function',
  );
  const matches = [
    functions.filter(([id]) => id === target),
    functions.filter(([id]) => id.startsWith(target)),
    functions.filter(([, resource]) => (resource.Metadata?.['aws:cdk:path'] ?? '').includes(`/${target}/`)),
  ].find((candidates) => candidates.length > 0);
  if (!matches || matches.length !== 1) {
    const known = functions
      .map(([id, resource]) => `  ${id}  (${resource.Metadata?.['aws:cdk:path'] ?? '?'})`)
      .join('\n');
    throw new Error(`${matches ? 'Several' : 'No'} functions match '${target}' in ${templatePath}:\n${known}`);
  }
  const [logicalId, resource] = matches[0];
  const assetPath = resource.Metadata?.['aws:asset:path'];
  if (!assetPath)
    throw new Error(`${logicalId} has no aws:asset:path metadata: synthesize with asset metadata on (the CLI default)`);
  const variables = resource.Properties.Environment?.Variables ?? {};
  const literal = Object.entries(variables).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return {
    bundle: join(dirname(resolve(templatePath)), assetPath, 'index.mjs'),
    handlerName: (resource.Properties.Handler ?? 'index.handler').split('.').pop()!,
    functionName: logicalId,
    timeoutMs: (resource.Properties.Timeout ?? 30) * 1000,
    memoryMb: resource.Properties.MemorySize ?? 128,
    environment: Object.fromEntries(literal),
    unresolved: Object.keys(variables).filter((name) => typeof variables[name] !== 'string'),
  };
}

/** Loads the bundle with the given environment and runs one event through its handler. */
export async function invoke(fn: LocalFunction, event: unknown, env: Record<string, string>): Promise<unknown> {
  const region = env.AWS_REGION ?? process.env.AWS_REGION ?? 'us-east-1';
  Object.assign(process.env, {
    AWS_REGION: region,
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    ...fn.environment,
    ...env,
  });
  const module = (await import(pathToFileURL(fn.bundle).href)) as Record<string, unknown>;
  const handler = module[fn.handlerName];
  if (typeof handler !== 'function') throw new Error(`${fn.bundle} exports no function '${fn.handlerName}'`);
  const context = localLambdaContext({
    functionName: fn.functionName,
    timeoutMs: fn.timeoutMs,
    memoryMb: fn.memoryMb,
    region,
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Task timed out after ${(fn.timeoutMs / 1000).toFixed(2)} seconds`)),
      fn.timeoutMs,
    );
  });
  try {
    return await Promise.race([Promise.resolve(handler(event, context)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function parseEnv(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`--env needs KEY=VALUE, got '${pair}'`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      template: { type: 'string', default: 'cdk.out/PaymentsService.template.json' },
      env: { type: 'string', multiple: true, default: [] },
      'timeout-ms': { type: 'string' },
      'result-file': { type: 'string' },
    },
  });
  if (positionals.length !== 2) {
    process.stderr.write(
      'usage: npx tsx scripts/local-invoke.ts <function|bundle> <event.json> [--template f] [--env K=V]... [--timeout-ms n] [--result-file f]\n',
    );
    return 2;
  }
  const [target, eventFile] = positionals;
  const resolved = resolveFunction(target, values.template!);
  const fn = values['timeout-ms'] ? { ...resolved, timeoutMs: Number(values['timeout-ms']) } : resolved;
  const env = parseEnv(values.env!);
  const missing = fn.unresolved.filter((name) => env[name] === undefined && process.env[name] === undefined);
  if (missing.length > 0)
    process.stderr.write(`warning: no local value for ${missing.join(', ')} (give --env NAME=value)\n`);
  const event = JSON.parse(readFileSync(eventFile, 'utf8')) as unknown;
  let outcome:
    { ok: true; result: unknown } | { ok: false; error: { errorType: string; errorMessage: string; trace: string[] } };
  try {
    outcome = { ok: true, result: await invoke(fn, event, env) };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    outcome = { ok: false, error: { errorType: e.name, errorMessage: e.message, trace: (e.stack ?? '').split('\n') } };
  }
  const text = JSON.stringify(outcome.ok ? (outcome.result ?? null) : outcome.error, null, 2);
  if (values['result-file']) writeFileSync(values['result-file'], JSON.stringify(outcome));
  process.stdout.write(`${text}\n`);
  return outcome.ok ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  main().then(
    (code) => process.stdout.write('', () => process.exit(code)),
    (error: Error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    },
  );
}
