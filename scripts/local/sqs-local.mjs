import { buildApp } from 'fauxqs';

/**
 * Starts the fauxqs SQS emulator in this process, listening on 127.0.0.1 only, on a free port.
 * (`startFauxqs` listens on every interface, so the app is built and bound here.)
 *
 * @returns {Promise<{ endpoint: string, port: number, stop: () => Promise<void> }>}
 */
export async function startSqsLocal() {
  const app = buildApp({ logger: false, host: '127.0.0.1', defaultRegion: 'us-east-1' });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  return { endpoint: `http://127.0.0.1:${port}`, port, stop: () => app.close() };
}
