/** A running DynamoDB Local (in memory, bound to 127.0.0.1, telemetry off). */
export interface DynamoDBLocal {
  readonly endpoint: string;
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}
export function startDynamoDBLocal(options?: {
  port?: number;
  startTimeoutMs?: number;
  onProgress?: (elapsedMs: number) => void;
  signal?: AbortSignal;
}): Promise<DynamoDBLocal>;
export function stopProcess(pid: number, child?: import('node:child_process').ChildProcess): Promise<void>;
