// `npm run size`: what a guarded HTTP handler bundles from idemkit's root entry, module by
// module, against the budget the root-bundle test holds (scripts/size/budget.json).
import { measureRootBundle, ROOT_BUNDLE_BUDGET, ROOT_BUNDLE_SLACK_BYTES } from './root-bundle.js';

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const measured = await measureRootBundle();
console.log(
  `bundle ${kib(measured.bundleBytes)}, of which idemkit's own code ${kib(measured.ownBytes)} (${measured.ownBytes} bytes)`,
);
console.log(
  `budget ${kib(ROOT_BUNDLE_BUDGET.ownBytes)} (+${kib(ROOT_BUNDLE_SLACK_BYTES)} before a change must say why)\n`,
);
console.log('| module | bytes |\n|---|---|');
for (const [path, bytes] of Object.entries(measured.ownModules).sort((a, b) => b[1] - a[1]))
  if (bytes > 0) console.log(`| ${path} | ${bytes} |`);
console.log('\n| package | bytes |\n|---|---|');
for (const [name, bytes] of Object.entries(measured.packages).sort((a, b) => b[1] - a[1]))
  if (bytes >= 1024) console.log(`| ${name} | ${bytes} |`);
process.exitCode = measured.ownBytes > ROOT_BUNDLE_BUDGET.ownBytes + ROOT_BUNDLE_SLACK_BYTES ? 1 : 0;
