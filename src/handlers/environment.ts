/**
 * Reads a required environment variable of an example handler.
 *
 * @throws Error naming the variable when it is missing or empty, so a misconfigured
 *   function fails at init with a clear message instead of on its first write.
 * @example const tableName = requiredEnv('PAYMENTS_TABLE_NAME');
 */
export function requiredEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`Environment variable ${name} is required`);
  return value;
}
