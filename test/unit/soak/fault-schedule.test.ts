import { buildFaultSchedule, FAULT_KINDS, FaultPlanner } from '../../../scripts/soak/fault-schedule.js';

describe('the soak fault schedule', () => {
  it('is the same for the same seed and different for another', () => {
    const first = buildFaultSchedule({ seed: 7, durationMs: 60_000 });
    expect(buildFaultSchedule({ seed: 7, durationMs: 60_000 })).toEqual(first);
    expect(buildFaultSchedule({ seed: 8, durationMs: 60_000 })).not.toEqual(first);
  });

  it.each([20_000, 120_000])(
    'holds every fault kind in a %i ms run, each one-off early enough to fire',
    (durationMs) => {
      const schedule = buildFaultSchedule({ seed: 1, durationMs });
      const kinds = new Set([
        ...schedule.windows.map((window) => window.kind),
        ...schedule.oneOffs.map((fault) => fault.kind),
      ]);
      expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort());
      expect(Math.max(...schedule.oneOffs.map((fault) => fault.atMs))).toBeLessThan(durationMs - 2_000);
      expect(schedule.windows.every((window) => window.endMs <= durationMs && window.share > 0)).toBe(true);
    },
  );

  it('hands a due kill to one request only, and again once handed back', () => {
    const planner = new FaultPlanner({ windows: [], oneOffs: [{ kind: 'kill-after-charge', atMs: 1_000 }] }, 1);
    expect(planner.planWrite(500, true).plan.killAt).toBeUndefined();
    const handed = planner.planWrite(1_500, true);
    expect(handed.plan.killAt).toBe('after-charge');
    expect(planner.planWrite(1_600, true).plan.killAt).toBeUndefined();
    planner.handBack(handed.handed);
    expect(planner.planWrite(1_700, true).plan.killAt).toBe('after-charge');
  });

  it('hands out nothing while faults are off, and applies a window only while it is open', () => {
    const planner = new FaultPlanner(
      {
        windows: [{ kind: 'dynamodb-throttle', startMs: 1_000, endMs: 2_000, share: 0.4, latencyMs: 0 }],
        oneOffs: [{ kind: 'response-dropped-after-commit', atMs: 0 }],
      },
      1,
    );
    expect(planner.planWrite(1_500, false).plan).toMatchObject({ throttleShare: 0, dropAfter: undefined });
    expect(planner.planWrite(2_500, true).plan).toMatchObject({ throttleShare: 0, dropAfter: 'commit' });
    expect(planner.planRead(1_500, true).throttleShare).toBe(0.4);
  });
});
