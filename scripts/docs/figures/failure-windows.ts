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

// Drawn narrow and with large text: the site and GitHub scale the figure down to the text column
// (about 800 px), where 16 px of this drawing still reads as body text.
const WIDTH_PX = 900;
const AXIS_Y_PX = 190;
const ROW_TOP_PX = 310;
const BODY_PX = 16;
const LINE_PX = 21;

/**
 * Renders the steps on a line, the windows between them numbered and shaded, and one row per
 * window saying what happens there, what closes it and which tests prove it, one under the other.
 *
 * @example
 * writeFileSync('docs/failure-windows.svg', renderFailureWindows(PAYMENT_STEPS, PAYMENT_WINDOWS))
 */
export function renderFailureWindows(steps: readonly string[], windows: readonly FailureWindow[]): string {
  if (windows.length !== steps.length - 1)
    throw new Error(`${steps.length} steps need ${steps.length - 1} windows, not ${windows.length}`);
  const left = 80;
  const stepGap = (WIDTH_PX - 2 * left) / (steps.length - 1);
  const stepX = (index: number): number => left + index * stepGap;
  const parts: string[] = [];
  wrapWords('Where a guarded payment can be interrupted, and what closes each window', 60).forEach((line, lineIndex) =>
    parts.push(text(line, { xPx: 20, yPx: 32 + lineIndex * 26, sizePx: 22, bold: true })),
  );
  wrapWords(
    'POST /payments of the example service; each window is killed or stalled on purpose by the tests named below',
    96,
  ).forEach((line, lineIndex) =>
    parts.push(text(line, { xPx: 20, yPx: 82 + lineIndex * 19, sizePx: 15, colour: PALETTE.muted })),
  );
  windows.forEach((window, index) => {
    parts.push(
      `<rect x="${round(stepX(index))}" y="${AXIS_Y_PX - 16}" width="${round(stepGap)}" height="32" fill="${window.fill}" stroke="${PALETTE.grid}"/>`,
    );
    parts.push(
      text(String(index + 1), {
        xPx: stepX(index) + stepGap / 2,
        yPx: AXIS_Y_PX + 6,
        anchor: 'middle',
        bold: true,
        sizePx: 17,
      }),
    );
  });
  steps.forEach((step, index) => {
    parts.push(`<circle cx="${round(stepX(index))}" cy="${AXIS_Y_PX}" r="7" fill="${PALETTE.ink}"/>`);
    // Labels alternate above and below the line, so neighbouring steps never overlap.
    const lines = wrapWords(step, 14);
    lines.forEach((line, lineIndex) =>
      parts.push(
        text(line, {
          xPx: stepX(index),
          yPx: index % 2 === 0 ? AXIS_Y_PX - 28 - (lines.length - 1 - lineIndex) * 18 : AXIS_Y_PX + 40 + lineIndex * 18,
          anchor: 'middle',
          sizePx: 15,
        }),
      ),
    );
  });

  let y = ROW_TOP_PX;
  parts.push(text('window: a crash or a lost answer here means', { xPx: 20, yPx: y, bold: true, sizePx: BODY_PX }));
  y += 12;
  windows.forEach((window, index) => {
    const said = wrapWords(window.whatHappens, 86);
    const closed = wrapWords(`closed by: ${window.closedBy}`, 86);
    const proven = wrapWords(`tests: ${window.provenBy}`, 92);
    const heightPx = (said.length + closed.length + proven.length) * LINE_PX + 16;
    parts.push(
      `<rect x="16" y="${y}" width="${WIDTH_PX - 32}" height="${heightPx}" fill="${window.fill}" opacity="0.55"/>`,
    );
    parts.push(text(String(index + 1), { xPx: 38, yPx: y + 26, anchor: 'middle', bold: true, sizePx: 20 }));
    const lineY = (lineIndex: number): number => y + 26 + lineIndex * LINE_PX;
    said.forEach((line, lineIndex) => parts.push(text(line, { xPx: 64, yPx: lineY(lineIndex), sizePx: BODY_PX })));
    closed.forEach((line, lineIndex) =>
      parts.push(text(line, { xPx: 64, yPx: lineY(said.length + lineIndex), sizePx: BODY_PX, bold: true })),
    );
    proven.forEach((line, lineIndex) =>
      parts.push(
        text(line, {
          xPx: 64,
          yPx: lineY(said.length + closed.length + lineIndex),
          sizePx: 14,
          colour: PALETTE.muted,
        }),
      ),
    );
    y += heightPx + 8;
  });
  return svgDocument(parts, {
    widthPx: WIDTH_PX,
    heightPx: y + 12,
    title: 'The failure windows of a guarded payment and the mechanism that closes each',
  });
}
