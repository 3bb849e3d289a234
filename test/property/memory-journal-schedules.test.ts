import fc from 'fast-check';
import { MemoryJournal } from '../../src/index.js';
import { propertyParameters } from './support/fast-check-parameters.js';
import { schedules } from './support/schedule-model.js';
import { runSchedule, type WorldFactory } from './support/schedule-runner.js';

const EFFECTS = 'effects';

/** A fresh MemoryJournal per run; staged effects land in its `effects` table. */
const memoryWorld: WorldFactory = (clock) => {
  const journal = new MemoryJournal({ clock });
  return {
    journal,
    effectsTable: EFFECTS,
    effectsOf: async (key) =>
      [...(journal.tables.get(EFFECTS)?.values() ?? [])]
        .filter((item) => item.pk === key)
        .map((item) => String(item.sk)),
  };
};

describe('random schedules of attempts, lease expiries and crashes on MemoryJournal', () => {
  it('keep one committed effect per key, replay the first stored outcome, and leave every key resolvable after its lease', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), schedules(25), async (scheduler, schedule) => {
        await runSchedule(memoryWorld, scheduler, schedule, `m${++run}`);
      }),
      propertyParameters(200),
    );
  });
});
