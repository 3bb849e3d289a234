/**
 * The attempt's table from (decision, phase) to action, written out here on its own, cell by cell,
 * and held against the one the executor reads. A row is a decision `decide()` can return, a column
 * the phase the attempt meets it in. Cells: `refuse <why>` is counted on the log line and metrics,
 * `refuse <why> quietly` is not (the lost lease already was); `supersede` likewise.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  actionFor,
  ATTEMPT_ACTIONS,
  ATTEMPT_PHASES,
  type AttemptAction,
  type AttemptPhase,
} from '../../../src/engine/attempt-actions.js';
import type { DecisionKind } from '../../../src/engine/decision.js';

const WRITTEN_OUT = `
decision     | admission                   | commit                  | lease-lost
claimable    | reserve-again               | refuse in-progress      | refuse in-progress quietly
replay       | replay                      | supersede               | supersede quietly
mismatch     | refuse mismatch             | refuse mismatch         | refuse mismatch quietly
in-progress  | wait                        | refuse in-progress      | refuse in-progress quietly
resume       | resume                      | refuse in-progress      | refuse in-progress quietly
take-over    | take-over                   | refuse in-progress      | refuse in-progress quietly
recover      | recover                     | refuse in-progress      | refuse in-progress quietly
review       | mark-for-review, read again | mark-for-review, refuse | refuse needs-review quietly
unreadable   | refuse unreadable           | refuse unreadable       | refuse unreadable
`;

/** A cell of the table above, as the action value it stands for. */
function actionOf(cell: string): AttemptAction {
  const quietly = cell.endsWith(' quietly');
  const words = cell.replace(/ quietly$/, '');
  if (words.startsWith('refuse '))
    return { kind: 'refuse', refusal: words.slice('refuse '.length) as never, counted: !quietly };
  if (words === 'supersede') return { kind: 'supersede', counted: !quietly };
  if (words === 'mark-for-review, read again') return { kind: 'mark-for-review', whenRaced: 'read-again' };
  if (words === 'mark-for-review, refuse') return { kind: 'mark-for-review', whenRaced: 'refuse' };
  return { kind: words } as AttemptAction;
}

const [header, ...rows] = WRITTEN_OUT.trim()
  .split('\n')
  .map((line) => line.split('|').map((cell) => cell.trim()));
const phases = header!.slice(1) as AttemptPhase[];
const cells = rows.flatMap(([decision, ...actions]) =>
  actions.map((cell, i) => [decision as DecisionKind, phases[i]!, cell, actionOf(cell)] as const),
);
/** The decisions `model/decisions.json` ties to the protocol model: every one `decide()` can return. */
const decisionKinds = Object.keys(
  JSON.parse(readFileSync(join(__dirname, '../../../model/decisions.json'), 'utf8')) as object,
) as DecisionKind[];

describe('the attempt’s table from (decision, phase) to action', () => {
  it('has a row for every decision and a column for every phase, each cell once', () => {
    expect(rows.map(([decision]) => decision).sort()).toEqual([...decisionKinds].sort());
    expect(phases).toEqual([...ATTEMPT_PHASES]);
    expect(Object.keys(ATTEMPT_ACTIONS).sort()).toEqual([...decisionKinds].sort());
    for (const kind of decisionKinds) expect(Object.keys(ATTEMPT_ACTIONS[kind]).sort()).toEqual([...phases].sort());
  });

  it.each(cells)('%s met at %s: %s', (decision, phase, _cell, expected) => {
    expect(actionFor(decision, phase)).toEqual(expected);
  });

  it('takes or answers with a record only for decisions that carry one', () => {
    const onRecord = new Set(['resume', 'take-over', 'recover', 'replay', 'supersede', 'mark-for-review']);
    const offending = cells.filter(
      ([decision, , , action]) => (decision === 'claimable' || decision === 'unreadable') && onRecord.has(action.kind),
    );
    expect(offending).toEqual([]);
  });

  it('marks for review only a record decided for review, and refuses as unreadable only an unreadable one', () => {
    const marking = cells.filter(([, , , action]) => action.kind === 'mark-for-review').map(([d]) => d);
    const unreadable = cells
      .filter(([, , , action]) => action.kind === 'refuse' && action.refusal === 'unreadable')
      .map(([d]) => d);
    expect(new Set(marking)).toEqual(new Set(['review']));
    expect(new Set(unreadable)).toEqual(new Set(['unreadable']));
  });

  it('after a lost lease writes nothing: no takeover, no mark, no new reservation, no wait', () => {
    const writing = ['reserve-again', 'wait', 'resume', 'take-over', 'recover', 'mark-for-review'];
    const afterLeaseLost = cells.filter(
      ([, phase, , action]) => phase === 'lease-lost' && writing.includes(action.kind),
    );
    expect(afterLeaseLost).toEqual([]);
  });

  it('runs the handler again only at admission: after it ran, anything that holds the key is refused', () => {
    const running = ['reserve-again', 'resume', 'take-over', 'recover', 'replay', 'wait'];
    const late = cells.filter(([, phase, , action]) => phase !== 'admission' && running.includes(action.kind));
    expect(late).toEqual([]);
  });
});
