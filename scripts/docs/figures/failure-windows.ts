/**
 * The failure windows of the guarded payment handler (the seed's `POST /payments`): each gap
 * between two of its steps, what a crash or a lost answer there leaves behind, and the mechanism
 * that closes it. Each window is one case of test/faults/kill-9-steps.test.ts (or the lease-lost
 * suite), which kills or stalls the real handler there against DynamoDB Local: the figure draws
 * what those tests assert.
 */
import { PALETTE, round, svgDocument, text, wrapWords } from './svg.js';

/** One gap between two steps of the handler. */
export interface FailureWindow {
  /** What a crash (or a lost answer) in this gap leaves behind, and what the retry gets. */
  readonly whatHappens: string;
  /** The part of idemkit that makes that outcome safe. */
  readonly closedBy: string;
  /** Where the tests make it happen. */
  readonly provenBy: string;
  /** Shading of the window on the timeline. */
  readonly fill: string;
}

/** The handler's steps, in order: a window lies between each step and the next. */
export const PAYMENT_STEPS: readonly string[] = Object.freeze([
  'request arrives',
  'reserve (PutItem)',
  "beginEffect('charge')",
  'rail.charge, its key from deriveKey',
  'recordEvidence({ chargeId })',
  'complete (TransactWriteItems)',
  'answer reaches the caller',
]);

/** What each window between PAYMENT_STEPS[i] and PAYMENT_STEPS[i + 1] means. */
export const PAYMENT_WINDOWS: readonly FailureWindow[] = Object.freeze([
  {
    whatHappens:
      'Nothing was written: the retry is a new request and charges once. With the journal unreachable the handler never runs (503).',
    closedBy: 'the reservation is the first write; fail closed',
    provenBy: "kill-9-steps: 'before the reservation'; reserve-faults",
    fill: PALETTE.free,
  },
  {
    whatHappens:
      'A record IN_PROGRESS with no effect begun: a retry inside the lease gets 409 request-in-progress, after it one takeover runs the handler and charges once.',
    closedBy: 'a lease fenced by its token; takeOver once the lease ended',
    provenBy: "kill-9-steps: 'after the reservation'; take-over-faults",
    fill: PALETTE.inProgress,
  },
  {
    whatHappens:
      'The charge may or may not have happened: no retry re-runs it blindly. The recover hook decides, or the record turns UNKNOWN and answers 409 needs-review.',
    closedBy: "beginEffect, the recover hook, the rail's own key from deriveKey",
    provenBy: "kill-9-steps: 'after beginEffect'; begin-effect-faults",
    fill: PALETTE.unknown,
  },
  {
    whatHappens:
      'The charge happened and its id is in the record: recover (or idemkit resolve --completed) finishes from the evidence without a second charge.',
    closedBy: 'recordEvidence; recover; the operator CLI',
    provenBy: "kill-9-steps: 'after the side effect'; demo scenario 4",
    fill: PALETTE.unknown,
  },
  {
    whatHappens:
      'The commit either landed whole or not at all. A stalled attempt whose lease was taken over commits nothing and gets the newer outcome.',
    closedBy: 'one transaction fenced on the lease token',
    provenBy: 'complete-faults; lease-lost',
    fill: PALETTE.inProgress,
  },
  {
    whatHappens:
      'The outcome is stored; the answer was lost (timeout, reset, 504). Every retry gets the same status, body and headers, Idempotent-Replayed: true.',
    closedBy: 'the stored outcome, replayed byte for byte',
    provenBy: "kill-9-steps: 'after the completion, before the answer'; demo scenario 1",
    fill: PALETTE.completed,
  },
]);

const WIDTH_PX = 1180;
const AXIS_Y_PX = 135;
const ROW_TOP_PX = 230;

/**
 * Renders the steps on a line, the windows between them numbered and shaded, and one row per
 * window saying what happens there and what closes it.
 *
 * @example
 * writeFileSync('docs/failure-windows.svg', renderFailureWindows(PAYMENT_STEPS, PAYMENT_WINDOWS))
 */
export function renderFailureWindows(steps: readonly string[], windows: readonly FailureWindow[]): string {
  if (windows.length !== steps.length - 1)
    throw new Error(`${steps.length} steps need ${steps.length - 1} windows, not ${windows.length}`);
  const left = 90;
  const stepGap = (WIDTH_PX - 2 * left) / (steps.length - 1);
  const stepX = (index: number): number => left + index * stepGap;
  const parts = [
    text('Where a guarded payment can be interrupted, and what closes each window', {
      xPx: 24,
      yPx: 30,
      sizePx: 18,
      bold: true,
    }),
    text(
      'POST /payments of the example service; each window is killed or stalled on purpose by the tests named below',
      {
        xPx: 24,
        yPx: 50,
        colour: PALETTE.muted,
      },
    ),
  ];
  windows.forEach((window, index) => {
    parts.push(
      `<rect x="${round(stepX(index))}" y="${AXIS_Y_PX - 14}" width="${round(stepGap)}" height="28" fill="${window.fill}" stroke="${PALETTE.grid}"/>`,
    );
    parts.push(
      text(String(index + 1), {
        xPx: stepX(index) + stepGap / 2,
        yPx: AXIS_Y_PX + 5,
        anchor: 'middle',
        bold: true,
        sizePx: 14,
      }),
    );
  });
  steps.forEach((step, index) => {
    parts.push(`<circle cx="${round(stepX(index))}" cy="${AXIS_Y_PX}" r="6" fill="${PALETTE.ink}"/>`);
    // Labels alternate above and below the line, so neighbouring steps never overlap.
    const lines = wrapWords(step, 20);
    lines.forEach((line, lineIndex) =>
      parts.push(
        text(line, {
          xPx: stepX(index),
          yPx: index % 2 === 0 ? AXIS_Y_PX - 26 - (lines.length - 1 - lineIndex) * 15 : AXIS_Y_PX + 36 + lineIndex * 15,
          anchor: 'middle',
          sizePx: 12,
        }),
      ),
    );
  });

  let y = ROW_TOP_PX;
  parts.push(text('window', { xPx: 24, yPx: y, bold: true }));
  parts.push(text('a crash or a lost answer here means', { xPx: 90, yPx: y, bold: true }));
  parts.push(text('closed by', { xPx: 720, yPx: y, bold: true }));
  y += 12;
  windows.forEach((window, index) => {
    const said = wrapWords(window.whatHappens, 88);
    const closed = wrapWords(window.closedBy, 52);
    const proven = wrapWords(`tests: ${window.provenBy}`, 60);
    const heightPx = Math.max(said.length, closed.length + proven.length) * 16 + 14;
    parts.push(
      `<rect x="20" y="${y}" width="${WIDTH_PX - 40}" height="${heightPx}" fill="${window.fill}" opacity="0.55"/>`,
    );
    parts.push(text(String(index + 1), { xPx: 44, yPx: y + 20, anchor: 'middle', bold: true, sizePx: 14 }));
    said.forEach((line, lineIndex) => parts.push(text(line, { xPx: 90, yPx: y + 20 + lineIndex * 16 })));
    closed.forEach((line, lineIndex) => parts.push(text(line, { xPx: 720, yPx: y + 20 + lineIndex * 16, bold: true })));
    proven.forEach((line, lineIndex) =>
      parts.push(
        text(line, { xPx: 720, yPx: y + 20 + (closed.length + lineIndex) * 16, sizePx: 12, colour: PALETTE.muted }),
      ),
    );
    y += heightPx + 6;
  });
  return svgDocument(parts, {
    widthPx: WIDTH_PX,
    heightPx: y + 14,
    title: 'The failure windows of a guarded payment and the mechanism that closes each',
  });
}
