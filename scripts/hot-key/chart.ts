import { PALETTE, round, svgDocument, text } from '../docs/figures/svg.js';
import { PARTITION_LIMITS } from './partition.js';
import type { SweepRow } from './storm-sweep.js';

const COLOURS = ['#d62728', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#1f77b4'];
/** Every other scenario dashed: neighbours that carry the same load would otherwise hide each other. */
const DASHES = ['', '7 4', '2 3'];
const WIDTH_PX = 960;
const HEIGHT_PX = 470;
const PANEL = { top: 70, height: 300, width: 380 } as const;
const LEFT_PANEL_X = 80;
const RIGHT_PANEL_X = 560;

interface Axis {
  readonly toX: (containers: number) => number;
  readonly maxContainers: number;
}

/**
 * Two panels over the storm size (containers, log scale): the peak write units a second the
 * callers asked of the hot key (log scale, with one partition's 1,000), and the share of
 * callers that got a 2xx. One line per scenario. Hand-written SVG like the other figures.
 *
 * @example
 * writeFileSync('docs/hot-key-storm.svg', renderStormChart(rows, 'seed 1, 10 callers a container'))
 */
export function renderStormChart(rows: readonly SweepRow[], subtitle: string): string {
  const scenarioIds = [...new Set(rows.map((row) => row.scenario.id))];
  const maxContainers = Math.max(10, ...rows.map((row) => row.result.containers));
  const decades = Math.ceil(Math.log10(maxContainers));
  const axisFor = (leftPx: number): Axis => ({
    maxContainers,
    toX: (containers) => leftPx + (Math.log10(containers) / decades) * PANEL.width,
  });
  const left = axisFor(LEFT_PANEL_X);
  const right = axisFor(RIGHT_PANEL_X);
  const maxUnits = Math.max(
    PARTITION_LIMITS.writeUnitsPerSecond * 10,
    ...rows.map((row) => row.result.writeUnitsPerSecond.peakOffered),
  );
  const unitDecades = Math.ceil(Math.log10(maxUnits));
  const unitsY = (units: number) =>
    PANEL.top + PANEL.height - (Math.log10(Math.max(units, 1)) / unitDecades) * PANEL.height;
  const shareY = (share: number) => PANEL.top + PANEL.height - share * PANEL.height;

  const parts: string[] = [
    text('A retry storm on one key: what the hot key is asked, and what callers get', {
      xPx: WIDTH_PX / 2,
      yPx: 26,
      sizePx: 17,
      anchor: 'middle',
      bold: true,
    }),
    text(subtitle, { xPx: WIDTH_PX / 2, yPx: 46, sizePx: 12, anchor: 'middle', colour: PALETTE.muted }),
    ...xAxis(left, decades),
    ...xAxis(right, decades),
  ];
  for (let decade = 0; decade <= unitDecades; decade++) {
    const y = unitsY(10 ** decade);
    parts.push(
      gridLine(LEFT_PANEL_X, y),
      text(label(10 ** decade), { xPx: LEFT_PANEL_X - 6, yPx: y + 4, sizePx: 11, anchor: 'end' }),
    );
  }
  for (const share of [0, 0.25, 0.5, 0.75, 1]) {
    const y = shareY(share);
    parts.push(
      gridLine(RIGHT_PANEL_X, y),
      text(`${share * 100} %`, { xPx: RIGHT_PANEL_X - 6, yPx: y + 4, sizePx: 11, anchor: 'end' }),
    );
  }
  const limitY = unitsY(PARTITION_LIMITS.writeUnitsPerSecond);
  parts.push(
    `<line x1="${LEFT_PANEL_X}" x2="${LEFT_PANEL_X + PANEL.width}" y1="${round(limitY)}" y2="${round(limitY)}" stroke="${PALETTE.ink}" stroke-width="2" stroke-dasharray="6 4"/>`,
    text('one partition: 1,000 write units/s', { xPx: LEFT_PANEL_X + 6, yPx: limitY - 6, sizePx: 12, bold: true }),
    text('peak write units/s asked of the hot key (throttled included)', {
      xPx: LEFT_PANEL_X + PANEL.width / 2,
      yPx: PANEL.top - 10,
      sizePx: 13,
      anchor: 'middle',
      bold: true,
    }),
    text('callers that got a 2xx before giving up', {
      xPx: RIGHT_PANEL_X + PANEL.width / 2,
      yPx: PANEL.top - 10,
      sizePx: 13,
      anchor: 'middle',
      bold: true,
    }),
  );
  scenarioIds.forEach((id, index) => {
    const scenarioRows = rows.filter((row) => row.scenario.id === id);
    const colour = COLOURS[index % COLOURS.length]!;
    const dash = DASHES[index % DASHES.length]!;
    parts.push(
      series(
        scenarioRows.map((row) => [
          left.toX(row.result.containers),
          unitsY(row.result.writeUnitsPerSecond.peakOffered),
        ]),
        colour,
        dash,
      ),
      series(
        scenarioRows.map((row) => [
          right.toX(row.result.containers),
          shareY(row.result.callersSucceeded / row.result.callers),
        ]),
        colour,
        dash,
      ),
    );
    const legendX = 80 + (index % 3) * 290;
    const legendY = HEIGHT_PX - 42 + Math.floor(index / 3) * 20;
    parts.push(
      `<line x1="${legendX}" x2="${legendX + 22}" y1="${legendY - 4}" y2="${legendY - 4}" stroke="${colour}" stroke-width="3"${dashAttribute(dash)}/>`,
      text(scenarioRows[0]?.scenario.label ?? id, { xPx: legendX + 28, yPx: legendY, sizePx: 12 }),
    );
  });
  return svgDocument(parts, {
    widthPx: WIDTH_PX,
    heightPx: HEIGHT_PX,
    title:
      'Peak write units per second on the hot key, and callers served, against the number of containers, per protection',
  });
}

function xAxis(axis: Axis, decades: number): string[] {
  const leftPx = axis.toX(1);
  const bottom = PANEL.top + PANEL.height;
  const parts = [
    `<line x1="${round(leftPx)}" x2="${round(leftPx + PANEL.width)}" y1="${bottom}" y2="${bottom}" stroke="${PALETTE.ink}"/>`,
    text('containers (× callers each)', {
      xPx: leftPx + PANEL.width / 2,
      yPx: bottom + 34,
      sizePx: 12,
      anchor: 'middle',
    }),
  ];
  for (let decade = 0; decade <= decades; decade++) {
    const x = axis.toX(10 ** decade);
    parts.push(
      `<line x1="${round(x)}" x2="${round(x)}" y1="${bottom}" y2="${bottom + 5}" stroke="${PALETTE.ink}"/>`,
      text(label(10 ** decade), { xPx: x, yPx: bottom + 18, sizePx: 11, anchor: 'middle' }),
    );
  }
  return parts;
}

function gridLine(leftPx: number, y: number): string {
  return `<line x1="${leftPx}" x2="${leftPx + PANEL.width}" y1="${round(y)}" y2="${round(y)}" stroke="${PALETTE.grid}"/>`;
}

function series(points: ReadonlyArray<readonly [number, number]>, colour: string, dash: string): string {
  const path = points.map(([x, y]) => `${round(x)},${round(y)}`).join(' ');
  const dots = points.map(([x, y]) => `<circle cx="${round(x)}" cy="${round(y)}" r="3" fill="${colour}"/>`).join('');
  return `<polyline fill="none" stroke="${colour}" stroke-width="2"${dashAttribute(dash)} points="${path}"/>${dots}`;
}

function dashAttribute(dash: string): string {
  return dash === '' ? '' : ` stroke-dasharray="${dash}"`;
}

function label(value: number): string {
  return value >= 1000 ? `${value / 1000}k` : String(value);
}
