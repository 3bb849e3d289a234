import { simulateHotKey } from './simulate.js';
import { measuredCallCosts } from './call-costs.js';
import { scenarios } from './protections.js';
const costs = measuredCallCosts();
for (const n of [1, 100, 1000, 10000])
  for (const s of scenarios()) {
    const t = Date.now();
    const r = await simulateHotKey({ containers: n, callersPerContainer: 10, protections: s.protections, costs });
    console.log(
      n,
      s.id.padEnd(3),
      String(Date.now() - t).padStart(6),
      'ms calls',
      r.journalCalls,
      'thr',
      r.throttledCalls,
      'W/s',
      r.writeUnitsPerSecond.peak,
      r.writeUnitsPerSecond.peakOffered,
      JSON.stringify(r.answers),
      'ok',
      r.callersSucceeded,
      'runs',
      r.handlerRuns,
      'drain',
      Math.round(r.drainMs),
    );
  }
