/** A DynamoDB Local process started for one run. */
export interface LocalServer {
  readonly endpoint: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts the project's loopback, in-memory, telemetry-off DynamoDB Local (scripts/local). */
export async function startLocalServer(): Promise<LocalServer> {
  const launcher = new URL('../../scripts/local/dynamodb-local.mjs', import.meta.url).href;
  const { startDynamoDBLocal } = (await import(launcher)) as { startDynamoDBLocal: () => Promise<LocalServer> };
  return startDynamoDBLocal();
}
