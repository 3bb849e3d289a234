import { FAULT_KINDS, type FaultKind, type FaultWindow } from './fault-schedule.js';
import { percentile, STATUS_CLASSES, statusClass, type RunRecord, type StatusClass } from './run-record.js';

/** What the chart shows besides the record. */
export interface SoakChartOptions {
  readonly title: string;
  readonly subtitle: string;
  readonly durationMs: number;
  readonly ratePerSecond: number;
  readonly windows: readonly FaultWindow[];
  /** @default 960 */
  readonly widthPx?: number;
}

const STATUS_COLOURS: Record<StatusClass, string> = {
  '2xx': '#2ca02c',
  '409': '#ff7f0e',
  'other 4xx': '#9467bd',
  '5xx': '#d62728',
  'no answer': '#333333',
};
const WINDOW_COLOURS: Record<FaultWindow['kind'], string> = {
  'dynamodb-throttle': '#fbe3e3',
  'dynamodb-latency': '#fff4cc',
};
const MARGIN = { left: 250, right: 44 } as const;
const ANSWERS = { top: 112, height: 240 } as const;
const LATENCY = { top: 396, height: 110 } as const;
const LANE_PX = 16;
const FAULTS_TOP = 546;

/**
 * Renders the run over time as a standalone SVG document, one-second buckets: answers by
 * status (stacked bars) with requests sent and the target rate as lines, p50/p99 latency,
 * and one lane per fault kind marking when each was injected; throttle and latency windows
 * are shaded behind the answers. Hand-written SVG, as the retry-storm chart.
 *
 * @example writeFileSync('docs/soak.svg', renderSoakChart(record, { title, subtitle, durationMs, ratePerSecond, windows }))
 */
export function renderSoakChart(record: RunRecord, options: SoakChartOptions): string {
  const widthPx = options.widthPx ?? 960;
  const heightPx = FAULTS_TOP + FAULT_KINDS.length * LANE_PX + 48;
  const plotWidth = widthPx - MARGIN.left - MARGIN.right;
  const seconds = Math.max(
    1,
    Math.ceil(
      Math.max(
        options.durationMs,
        ...record.exchanges.filter((e) => e.phase !== 'warm-up').map((e) => e.sentAtMs + e.latencyMs),
      ) / 1000,
    ),
  );
  const x = (ms: number): number => MARGIN.left + (ms / (seconds * 1000)) * plotWidth;
  const series = perSecond(record, seconds);

  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${widthPx}" height="${heightPx}" viewBox="0 0 ${widthPx} ${heightPx}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${widthPx}" height="${heightPx}" fill="#ffffff"/>`,
    `<text x="${widthPx / 2}" y="24" text-anchor="middle" font-size="16" font-weight="600">${escapeXml(options.title)}</text>`,
    `<text x="${widthPx / 2}" y="42" text-anchor="middle" fill="#555555">${escapeXml(options.subtitle)}</text>`,
    ...legend(MARGIN.left, 66),
    ...answersPanel(series, options, x, plotWidth),
    ...latencyPanel(series, x, plotWidth),
    ...faultLanes(record, x, plotWidth),
    ...timeAxis(seconds, x, FAULTS_TOP + FAULT_KINDS.length * LANE_PX),
    `<text x="${MARGIN.left + plotWidth / 2}" y="${heightPx - 8}" text-anchor="middle">run time (s); faults are injected during the load, then the clients settle and the queues drain</text>`,
    '</svg>',
  ];
  return `${parts.join('\n')}\n`;
}

interface Second {
  readonly sent: number;
  readonly answers: Record<StatusClass, number>;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

function perSecond(record: RunRecord, seconds: number): Second[] {
  const sent = new Array<number>(seconds).fill(0);
  const answers = Array.from(
    { length: seconds },
    () => Object.fromEntries(STATUS_CLASSES.map((c) => [c, 0])) as Record<StatusClass, number>,
  );
  const latencies = Array.from({ length: seconds }, () => [] as number[]);
  for (const exchange of record.exchanges) {
    if (exchange.phase === 'warm-up') continue;
    const sentSecond = Math.min(seconds - 1, Math.floor(exchange.sentAtMs / 1000));
    const answeredSecond = Math.min(seconds - 1, Math.floor((exchange.sentAtMs + exchange.latencyMs) / 1000));
    sent[sentSecond]! += 1;
    answers[answeredSecond]![statusClass(exchange.status)] += 1;
    if (exchange.status !== 0) latencies[answeredSecond]!.push(exchange.latencyMs);
  }
  return sent.map((count, i) => ({
    sent: count,
    answers: answers[i]!,
    p50Ms: percentile(latencies[i]!, 50),
    p99Ms: percentile(latencies[i]!, 99),
  }));
}

function answersPanel(
  series: readonly Second[],
  options: SoakChartOptions,
  x: (ms: number) => number,
  plotWidth: number,
): string[] {
  const top = ANSWERS.top;
  const maxValue = Math.max(options.ratePerSecond, ...series.map((s) => Math.max(s.sent, total(s.answers))));
  const yStep = niceStep(maxValue);
  const yMax = Math.ceil(maxValue / yStep) * yStep;
  const y = (value: number): number => top + ANSWERS.height - (value / yMax) * ANSWERS.height;
  const parts = options.windows.map(
    (window) =>
      `<rect x="${x(window.startMs).toFixed(1)}" y="${top}" width="${(x(window.endMs) - x(window.startMs)).toFixed(1)}" height="${ANSWERS.height}" fill="${WINDOW_COLOURS[window.kind]}"/>`,
  );
  parts.push(...gridlines(yMax, yStep, y, plotWidth));
  const barPx = Math.max(1, x(1000) - x(0) - 1);
  series.forEach((second, i) => {
    let base = 0;
    for (const statusClassName of STATUS_CLASSES) {
      const count = second.answers[statusClassName];
      if (count === 0) continue;
      parts.push(
        `<rect x="${x(i * 1000).toFixed(1)}" y="${y(base + count).toFixed(1)}" width="${barPx.toFixed(1)}" height="${(y(base) - y(base + count)).toFixed(1)}" fill="${STATUS_COLOURS[statusClassName]}"/>`,
      );
      base += count;
    }
  });
  parts.push(
    stepLine(
      series.map((s) => s.sent),
      x,
      y,
      '#1f77b4',
      2,
    ),
  );
  parts.push(
    `<line x1="${x(0)}" x2="${x(options.durationMs)}" y1="${y(options.ratePerSecond)}" y2="${y(options.ratePerSecond)}" stroke="#000000" stroke-dasharray="6 4"/>`,
  );
  parts.push(`<text x="${MARGIN.left - 12}" y="${top + ANSWERS.height / 2}" text-anchor="end">answers / s</text>`);
  parts.push(
    `<text x="${MARGIN.left - 12}" y="${top + ANSWERS.height / 2 + 16}" text-anchor="end" fill="#555555">(stacked by status)</text>`,
  );
  return parts;
}

function latencyPanel(series: readonly Second[], x: (ms: number) => number, plotWidth: number): string[] {
  const top = LATENCY.top;
  const observed = series.flatMap((s) => [s.p99Ms]).filter((v) => Number.isFinite(v));
  const maxValue = Math.max(10, ...observed);
  const yStep = niceStep(maxValue);
  const yMax = Math.ceil(maxValue / yStep) * yStep;
  const y = (value: number): number => top + LATENCY.height - (value / yMax) * LATENCY.height;
  return [
    ...gridlines(yMax, yStep, y, plotWidth),
    stepLine(
      series.map((s) => s.p99Ms),
      x,
      y,
      '#d62728',
      1.5,
    ),
    stepLine(
      series.map((s) => s.p50Ms),
      x,
      y,
      '#1f77b4',
      1.5,
    ),
    `<text x="${MARGIN.left - 12}" y="${top + LATENCY.height / 2 - 8}" text-anchor="end">latency (ms)</text>`,
    `<text x="${MARGIN.left - 12}" y="${top + LATENCY.height / 2 + 8}" text-anchor="end"><tspan fill="#1f77b4">p50</tspan> / <tspan fill="#d62728">p99</tspan> per second</text>`,
  ];
}

function faultLanes(record: RunRecord, x: (ms: number) => number, plotWidth: number): string[] {
  const totals = record.faultTotals();
  const parts = [
    `<text x="${MARGIN.left}" y="${FAULTS_TOP - 10}" font-weight="600">faults injected (one tick per injection; count in brackets)</text>`,
  ];
  FAULT_KINDS.forEach((kind: FaultKind, lane) => {
    const rowY = FAULTS_TOP + lane * LANE_PX;
    parts.push(
      `<rect x="${MARGIN.left}" y="${rowY}" width="${plotWidth}" height="${LANE_PX - 2}" fill="${lane % 2 === 0 ? '#f7f7f7' : '#ffffff'}"/>`,
    );
    parts.push(
      `<text x="${MARGIN.left - 8}" y="${rowY + LANE_PX - 5}" text-anchor="end">${escapeXml(`${kind} (${totals.get(kind) ?? 0})`)}</text>`,
    );
    for (const event of record.faults.filter((candidate) => candidate.kind === kind)) {
      parts.push(
        `<line x1="${x(event.atMs).toFixed(1)}" x2="${x(event.atMs).toFixed(1)}" y1="${rowY + 1}" y2="${rowY + LANE_PX - 3}" stroke="${kind.startsWith('kill') ? '#d62728' : '#444444'}" stroke-width="1.5"/>`,
      );
    }
  });
  return parts;
}

function legend(left: number, top: number): string[] {
  const entries: [string, string, 'box' | 'line' | 'dash'][] = [
    ...STATUS_CLASSES.map((c): [string, string, 'box'] => [c, STATUS_COLOURS[c], 'box']),
    ['requests sent / s', '#1f77b4', 'line'],
    ['target rate', '#000000', 'dash'],
    ['throttle window', WINDOW_COLOURS['dynamodb-throttle'], 'box'],
    ['latency window', WINDOW_COLOURS['dynamodb-latency'], 'box'],
  ];
  // Answers on the first row, lines and windows on the second.
  const rows = [entries.slice(0, STATUS_CLASSES.length), entries.slice(STATUS_CLASSES.length)];
  return rows.flatMap((row, rowIndex) => {
    let cursor = left;
    const rowY = top + rowIndex * 18;
    return row.flatMap(([label, colour, shape]) => {
      const mark =
        shape === 'box'
          ? `<rect x="${cursor}" y="${rowY - 9}" width="12" height="12" fill="${colour}" stroke="#999999" stroke-width="0.5"/>`
          : `<line x1="${cursor}" x2="${cursor + 14}" y1="${rowY - 3}" y2="${rowY - 3}" stroke="${colour}" stroke-width="2"${shape === 'dash' ? ' stroke-dasharray="4 3"' : ''}/>`;
      const text = `<text x="${cursor + 18}" y="${rowY + 1}">${escapeXml(label)}</text>`;
      cursor += 30 + label.length * 6.5;
      return [mark, text];
    });
  });
}

function gridlines(yMax: number, yStep: number, y: (value: number) => number, plotWidth: number): string[] {
  const lines: string[] = [];
  for (let value = 0; value <= yMax; value += yStep) {
    lines.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#dddddd"/>`,
    );
    lines.push(
      `<text x="${MARGIN.left + plotWidth + 4}" y="${(y(value) + 4).toFixed(1)}" font-size="10" fill="#555555">${value}</text>`,
    );
  }
  return lines;
}

function timeAxis(seconds: number, x: (ms: number) => number, top: number): string[] {
  const step = seconds > 60 ? 10 : 5;
  const ticks = [`<line x1="${x(0)}" x2="${x(seconds * 1000)}" y1="${top}" y2="${top}" stroke="#333333"/>`];
  for (let s = 0; s <= seconds; s += step) {
    ticks.push(`<line x1="${x(s * 1000)}" x2="${x(s * 1000)}" y1="${top}" y2="${top + 5}" stroke="#333333"/>`);
    ticks.push(`<text x="${x(s * 1000)}" y="${top + 18}" text-anchor="middle">${s}</text>`);
  }
  return ticks;
}

function stepLine(
  values: readonly number[],
  x: (ms: number) => number,
  y: (value: number) => number,
  colour: string,
  widthPx: number,
): string {
  const points = values.flatMap((value, i) =>
    Number.isFinite(value)
      ? [`${x(i * 1000).toFixed(1)},${y(value).toFixed(1)}`, `${x((i + 1) * 1000).toFixed(1)},${y(value).toFixed(1)}`]
      : [],
  );
  return `<polyline fill="none" stroke="${colour}" stroke-width="${widthPx}" stroke-linejoin="round" points="${points.join(' ')}"/>`;
}

function total(answers: Record<StatusClass, number>): number {
  return STATUS_CLASSES.reduce((sum, c) => sum + answers[c], 0);
}

/** A round tick step (1, 2 or 5 times a power of ten) giving about four gridlines. */
function niceStep(maxValue: number): number {
  const rough = Math.max(1, maxValue) / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= rough) ?? 10;
  return step * power;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
