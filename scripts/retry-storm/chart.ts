import type { RetryStormResult, RetryStormStrategy } from './simulate.js';

/** What the chart shows besides the runs themselves. */
export interface ChartOptions {
  /** Shaded as the period in which the server fails every request. */
  readonly brownoutMs: number;
  /** @default 'Requests per 100 ms during and after a brownout' */
  readonly title?: string;
  /** Second line under the title, e.g. the scenario's parameters. @default none */
  readonly subtitle?: string;
  /** @default 900 */
  readonly widthPx?: number;
  /** @default 420 */
  readonly heightPx?: number;
}

const COLOURS: Record<RetryStormStrategy, string> = { fixed: '#d62728', jitter: '#ff7f0e', 'jitter-budget': '#1f77b4' };
const LABELS: Record<RetryStormStrategy, string> = {
  fixed: 'fixed 1 s delay',
  jitter: 'full jitter, no budget',
  'jitter-budget': 'full jitter + retry budget',
};
const MARGIN = { top: 60, right: 24, bottom: 48, left: 64 } as const;

/**
 * Renders the requests sent per bucket over time, one step line per run, as a standalone SVG
 * document (hand-written: a few dozen elements do not justify a charting dependency).
 *
 * @example
 * writeFileSync('docs/retry-storm.svg', renderRetryStormChart([fixed, jitterBudget], { brownoutMs: 4_000 }))
 */
export function renderRetryStormChart(runs: readonly RetryStormResult[], options: ChartOptions): string {
  const widthPx = options.widthPx ?? 900;
  const heightPx = options.heightPx ?? 420;
  const title = options.title ?? 'Requests per 100 ms during and after a brownout';
  const plot = {
    left: MARGIN.left,
    top: MARGIN.top,
    width: widthPx - MARGIN.left - MARGIN.right,
    height: heightPx - MARGIN.top - MARGIN.bottom,
  };
  const endMs =
    Math.ceil(Math.max(options.brownoutMs, ...runs.map((run) => run.requestsPerBucket.length * run.bucketMs)) / 1000) *
    1000;
  const yStep = niceStep(Math.max(1, ...runs.flatMap((run) => run.requestsPerBucket)));
  const yMax = Math.ceil(Math.max(1, ...runs.flatMap((run) => run.requestsPerBucket)) / yStep) * yStep;
  const x = (ms: number): number => plot.left + (ms / endMs) * plot.width;
  const y = (count: number): number => plot.top + plot.height - (count / yMax) * plot.height;

  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${widthPx}" height="${heightPx}" viewBox="0 0 ${widthPx} ${heightPx}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${widthPx}" height="${heightPx}" fill="#ffffff"/>`,
    `<text x="${widthPx / 2}" y="24" text-anchor="middle" font-size="16" font-weight="600">${escapeXml(title)}</text>`,
    options.subtitle === undefined
      ? ''
      : `<text x="${widthPx / 2}" y="42" text-anchor="middle" fill="#555555">${escapeXml(options.subtitle)}</text>`,
    `<rect x="${x(0)}" y="${plot.top}" width="${x(options.brownoutMs) - x(0)}" height="${plot.height}" fill="#eeeeee"/>`,
    `<text x="${x(options.brownoutMs) - 6}" y="${plot.top + 16}" text-anchor="end" fill="#666666">brownout: every request fails</text>`,
    ...yTicks(yMax, yStep, plot, y),
    ...xTicks(endMs, plot, x),
    ...runs.map((run) => stepLine(run, x, y)),
    ...legend(runs, plot.left + plot.width - 480, plot.top + 36),
    `<text x="${plot.left + plot.width / 2}" y="${heightPx - 10}" text-anchor="middle">time (s)</text>`,
    `<text transform="translate(16 ${plot.top + plot.height / 2}) rotate(-90)" text-anchor="middle">requests per ${runs[0]?.bucketMs ?? 100} ms</text>`,
    '</svg>',
  ];
  return `${parts.filter((part) => part !== '').join('\n')}\n`;
}

interface Plot {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

function stepLine(run: RetryStormResult, x: (ms: number) => number, y: (count: number) => number): string {
  const points = run.requestsPerBucket.flatMap((count, i) => [
    `${x(i * run.bucketMs).toFixed(1)},${y(count).toFixed(1)}`,
    `${x((i + 1) * run.bucketMs).toFixed(1)},${y(count).toFixed(1)}`,
  ]);
  return `<polyline fill="none" stroke="${COLOURS[run.strategy]}" stroke-width="1.5" stroke-linejoin="round" points="${points.join(' ')}"/>`;
}

function yTicks(yMax: number, yStep: number, plot: Plot, y: (count: number) => number): string[] {
  const ticks: string[] = [];
  for (let count = 0; count <= yMax; count += yStep) {
    ticks.push(
      `<line x1="${plot.left}" x2="${plot.left + plot.width}" y1="${y(count)}" y2="${y(count)}" stroke="#dddddd"/>`,
    );
    ticks.push(`<text x="${plot.left - 8}" y="${y(count) + 4}" text-anchor="end">${count}</text>`);
  }
  return ticks;
}

function xTicks(endMs: number, plot: Plot, x: (ms: number) => number): string[] {
  const ticks = [
    `<line x1="${plot.left}" x2="${plot.left + plot.width}" y1="${plot.top + plot.height}" y2="${plot.top + plot.height}" stroke="#333333"/>`,
  ];
  for (let ms = 0; ms <= endMs; ms += 1000) {
    ticks.push(
      `<line x1="${x(ms)}" x2="${x(ms)}" y1="${plot.top + plot.height}" y2="${plot.top + plot.height + 5}" stroke="#333333"/>`,
    );
    ticks.push(`<text x="${x(ms)}" y="${plot.top + plot.height + 18}" text-anchor="middle">${ms / 1000}</text>`);
  }
  return ticks;
}

function legend(runs: readonly RetryStormResult[], left: number, top: number): string[] {
  return runs.flatMap((run, i) => {
    const rowY = top + i * 20;
    const text = `${LABELS[run.strategy]}: peak ${run.peakAfterFirstWave}, ${run.totals.retries} retries, ${run.totals.succeeded} calls succeeded`;
    return [
      `<line x1="${left}" x2="${left + 24}" y1="${rowY}" y2="${rowY}" stroke="${COLOURS[run.strategy]}" stroke-width="3"/>`,
      `<text x="${left + 32}" y="${rowY + 4}">${escapeXml(text)}</text>`,
    ];
  });
}

/** A round tick step (1, 2 or 5 times a power of ten) giving about five gridlines. */
function niceStep(maxValue: number): number {
  const rough = maxValue / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= rough) ?? 10;
  return step * power;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
