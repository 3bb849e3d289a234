/**
 * The journal record's state machine, drawn from the `stateDiagram-v2` block of docs/protocol.md
 * (the one description of the states, which GitHub also renders) and checked against
 * model/guards.json: every guard a transition names must be a guard of the model, so the picture
 * cannot show a condition the code and the model do not have.
 */
import { PALETTE, round, svgDocument, text, wrapWords } from './svg.js';

/** One state of the diagram: its id and the description mermaid shows. */
export interface DiagramState {
  readonly id: string;
  readonly description: string;
}

/** One arrow: from, to, and the writes (with their guards in brackets) that move the record. */
export interface DiagramTransition {
  readonly from: string;
  readonly to: string;
  readonly label: string;
}

/** The parsed diagram. */
export interface StateDiagram {
  readonly states: readonly DiagramState[];
  readonly transitions: readonly DiagramTransition[];
  /** The state `[*]` points at. */
  readonly initial: string;
}

/**
 * Reads the first `stateDiagram-v2` block of a markdown document.
 *
 * @example
 * parseStateDiagram(readFileSync('docs/protocol.md', 'utf8')).transitions.length
 */
export function parseStateDiagram(markdown: string): StateDiagram {
  const block = /```mermaid\n\s*stateDiagram-v2\n([\s\S]*?)```/.exec(markdown);
  if (!block) throw new Error('no ```mermaid stateDiagram-v2 block found');
  const states: DiagramState[] = [];
  const transitions: DiagramTransition[] = [];
  let initial: string | undefined;
  for (const line of block[1].split('\n').map((raw) => raw.trim())) {
    const state = /^state "(.+)" as (\w+)$/.exec(line);
    const arrow = /^(\[\*\]|\w+) --> (\w+)(?:: (.+))?$/.exec(line);
    if (state) states.push({ id: state[2], description: state[1] });
    else if (arrow?.[1] === '[*]') initial = arrow[2];
    else if (arrow) transitions.push({ from: arrow[1], to: arrow[2], label: arrow[3] ?? '' });
    else if (line !== '') throw new Error(`unreadable line in the state diagram: ${line}`);
  }
  if (!initial) throw new Error('the state diagram has no initial state ([*] --> ...)');
  const known = new Set(states.map(({ id }) => id));
  for (const id of [initial, ...transitions.flatMap(({ from, to }) => [from, to])]) {
    if (!known.has(id)) throw new Error(`the state diagram uses ${id}, which it does not declare`);
  }
  return { states, transitions, initial };
}

/**
 * The guard names a diagram's transitions cite in brackets that model/guards.json does not define.
 *
 * @example
 * unknownGuards(diagram, Object.keys(guards)) // [] when the picture and the model agree
 */
export function unknownGuards(diagram: StateDiagram, guardNames: readonly string[]): string[] {
  const known = new Set(guardNames);
  const cited = diagram.transitions.flatMap(({ label }) =>
    [...label.matchAll(/\[([^\]]+)\]/g)].flatMap((match) => match[1].split(/,\s*/)),
  );
  return [...new Set(cited.filter((name) => !known.has(name)))];
}

/** Where each state sits, left to right in the order a record usually moves. */
const LAYOUT: Readonly<Record<string, { readonly xPx: number; readonly yPx: number; readonly fill: string }>> = {
  Free: { xPx: 170, yPx: 300, fill: PALETTE.free },
  Leased: { xPx: 440, yPx: 130, fill: PALETTE.inProgress },
  Lapsed: { xPx: 440, yPx: 470, fill: PALETTE.inProgress },
  Completed: { xPx: 730, yPx: 262, fill: PALETTE.completed },
  Effect: { xPx: 1000, yPx: 130, fill: PALETTE.inProgress },
  Unknown: { xPx: 1000, yPx: 470, fill: PALETTE.unknown },
};
const BOX = { widthPx: 210, lineHeightPx: 15, paddingPx: 10 } as const;
const WIDTH_PX = 1180;
const LEGEND_TOP_PX = 580;
const LEGEND_LINE_PX = 17;
const CURVE_PX = 36;
const BADGE_AT = 0.38;

interface Point {
  readonly x: number;
  readonly y: number;
}

/**
 * Renders the diagram as a standalone SVG: a box per state, a numbered arrow per transition, and
 * the numbered list of the writes (with their guards) under it.
 *
 * @example
 * writeFileSync('docs/state-machine.svg', renderStateMachine(parseStateDiagram(protocolMarkdown)))
 */
export function renderStateMachine(diagram: StateDiagram): string {
  const boxes = new Map(diagram.states.map((state) => [state.id, stateBox(state)]));
  const badges: string[] = [];
  const parts: string[] = [
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">' +
      `<path d="M0,0 L10,5 L0,10 z" fill="${PALETTE.muted}"/></marker></defs>`,
    text("A journal record's states and the conditional writes that move it", {
      xPx: 24,
      yPx: 30,
      sizePx: 18,
      bold: true,
    }),
    text(
      'drawn from docs/protocol.md; every guard in brackets is a condition of src/journal/conditions.ts, model-checked',
      {
        xPx: 24,
        yPx: 50,
        colour: PALETTE.muted,
      },
    ),
  ];
  const initialBox = boxes.get(diagram.initial)!;
  const start = { x: 40, y: initialBox.centre.y };
  parts.push(`<circle cx="${start.x}" cy="${start.y}" r="7" fill="${PALETTE.ink}"/>`);
  parts.push(arrowPath(start, { x: initialBox.left, y: initialBox.centre.y }, undefined));

  diagram.transitions.forEach((transition, index) => {
    const from = boxes.get(transition.from)!;
    const to = boxes.get(transition.to)!;
    const number = String(index + 1);
    if (from === to) {
      const top = from.centre.y - from.heightPx / 2;
      const left = from.centre.x + from.widthPx / 2 - 60;
      parts.push(
        `<path d="M${left},${top} C${left - 10},${top - 44} ${left + 50},${top - 44} ${left + 40},${top}" fill="none"` +
          ` stroke="${PALETTE.muted}" stroke-width="1.4" marker-end="url(#arrow)"/>`,
      );
      badges.push(numberBadge({ x: left + 20, y: top - 33 }, number));
      return;
    }
    const dx = to.centre.x - from.centre.x;
    const dy = to.centre.y - from.centre.y;
    const length = Math.hypot(dx, dy);
    // Bending every arrow to its own left keeps the two directions between one pair of states apart.
    const control = {
      x: (from.centre.x + to.centre.x) / 2 - (dy / length) * CURVE_PX,
      y: (from.centre.y + to.centre.y) / 2 + (dx / length) * CURVE_PX,
    };
    const begin = from.borderToward(control);
    const end = to.borderToward(control);
    parts.push(arrowPath(begin, end, control));
    // Short of the middle, where the long arrows cross the columns of states between their ends.
    const t = BADGE_AT;
    const along = (a: number, c: number, b: number): number => (1 - t) ** 2 * a + 2 * t * (1 - t) * c + t ** 2 * b;
    badges.push(numberBadge({ x: along(begin.x, control.x, end.x), y: along(begin.y, control.y, end.y) }, number));
  });

  // Numbers go on top of the boxes, so an arrow passing behind a state keeps its number readable.
  for (const box of boxes.values()) parts.push(...box.elements);
  parts.push(...badges);

  let legendY = LEGEND_TOP_PX;
  diagram.transitions.forEach((transition, index) => {
    const lines = wrapWords(`${transition.from} → ${transition.to}: ${transition.label || 'time passes'}`, 150);
    parts.push(numberBadge({ x: 36, y: legendY - 4 }, String(index + 1)));
    lines.forEach((line, lineIndex) => parts.push(text(line, { xPx: 54, yPx: legendY + lineIndex * LEGEND_LINE_PX })));
    legendY += lines.length * LEGEND_LINE_PX + 3;
  });

  return svgDocument(parts, {
    widthPx: WIDTH_PX,
    heightPx: Math.ceil(legendY + 10),
    title: "The journal record's state machine: states, and the guarded writes that move a record between them",
  });
}

interface StateBox {
  readonly centre: Point;
  readonly left: number;
  readonly widthPx: number;
  readonly heightPx: number;
  readonly elements: readonly string[];
  borderToward(point: Point): Point;
}

function stateBox(state: DiagramState): StateBox {
  const place = LAYOUT[state.id];
  if (!place) throw new Error(`no place in the picture for the state ${state.id}: add it to LAYOUT`);
  const lines = wrapWords(state.description, 30);
  const heightPx = BOX.paddingPx * 2 + (lines.length + 1) * BOX.lineHeightPx;
  const left = place.xPx - BOX.widthPx / 2;
  const top = place.yPx - heightPx / 2;
  const elements = [
    `<rect x="${left}" y="${round(top)}" width="${BOX.widthPx}" height="${heightPx}" rx="10" fill="${place.fill}" stroke="${PALETTE.ink}" stroke-width="1.2"/>`,
    text(state.id, { xPx: place.xPx, yPx: top + BOX.paddingPx + 12, anchor: 'middle', bold: true, sizePx: 14 }),
    ...lines.map((line, index) =>
      text(line, {
        xPx: place.xPx,
        yPx: top + BOX.paddingPx + 12 + (index + 1) * BOX.lineHeightPx,
        anchor: 'middle',
        sizePx: 12,
        colour: PALETTE.muted,
      }),
    ),
  ];
  return {
    centre: { x: place.xPx, y: place.yPx },
    left,
    widthPx: BOX.widthPx,
    heightPx,
    elements,
    borderToward(point) {
      const dx = point.x - place.xPx;
      const dy = point.y - place.yPx;
      const scale = Math.min(BOX.widthPx / 2 / Math.abs(dx || 1e-9), heightPx / 2 / Math.abs(dy || 1e-9));
      return { x: place.xPx + dx * scale, y: place.yPx + dy * scale };
    },
  };
}

function arrowPath(begin: Point, end: Point, control: Point | undefined): string {
  const curve = control ? `Q${round(control.x)},${round(control.y)} ` : 'L';
  return (
    `<path d="M${round(begin.x)},${round(begin.y)} ${curve}${round(end.x)},${round(end.y)}" fill="none"` +
    ` stroke="${PALETTE.muted}" stroke-width="1.4" marker-end="url(#arrow)"/>`
  );
}

function numberBadge(at: Point, number: string): string {
  return (
    `<circle cx="${round(at.x)}" cy="${round(at.y)}" r="9" fill="#ffffff" stroke="${PALETTE.idemkit}" stroke-width="1.2"/>` +
    text(number, { xPx: at.x, yPx: at.y + 4, anchor: 'middle', sizePx: 11, bold: true, colour: PALETTE.idemkit })
  );
}
