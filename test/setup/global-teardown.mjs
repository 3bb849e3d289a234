/** Ends the services started by the global setup. */
export default async function globalTeardown() {
  const services = globalThis.__idemkitServices;
  if (!services) return;
  await Promise.allSettled([services.dynamo.stop(), services.sqs.stop()]);
}
