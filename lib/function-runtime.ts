import { Runtime } from 'aws-cdk-lib/aws-lambda';

/**
 * The Lambda runtime of every function an idemkit construct builds unless its `runtime` prop says
 * otherwise: the newest Node.js runtime Lambda supports (`nodejs22.x` is the other one; `nodejs20.x`
 * is deprecated). The runtime and the constructs are tested on Node 20, 22 and 24.
 *
 * @default Runtime.NODEJS_24_X
 * @example
 * new IdemkitFunction(this, 'CreatePayment', { entry: 'src/create-payment.ts', runtime: Runtime.NODEJS_22_X });
 * // without `runtime`: DEFAULT_FUNCTION_RUNTIME (nodejs24.x)
 */
export const DEFAULT_FUNCTION_RUNTIME: Runtime = Runtime.NODEJS_24_X;

/** The esbuild target matching a Node.js Lambda runtime (`nodejs24.x` → `node24`). */
export function bundleTargetOf(runtime: Runtime): string {
  return runtime.name.replace(/^nodejs(\d+)\.x$/, 'node$1');
}
