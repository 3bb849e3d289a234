/** The SQS emulator running in this process on 127.0.0.1. */
export interface SqsLocal {
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}
export function startSqsLocal(): Promise<SqsLocal>;
