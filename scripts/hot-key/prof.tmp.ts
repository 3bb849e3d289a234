import { simulateHotKey } from './simulate.js';
import { measuredCallCosts } from './call-costs.js';
import { scenarios } from './protections.js';
const costs = measuredCallCosts();
const n = Number(process.argv[2]);
const sc = process.argv[3]!;
const t = Date.now();
const r = await simulateHotKey({
  containers: n,
  callersPerContainer: 10,
  protections: scenarios().find((s) => s.id === sc)!.protections,
  costs,
});
console.log(Date.now() - t, r.journalCalls);
