/**
 * The benchmark's ratios, idemkit ÷ Powertools idempotency, drawn from bench/results.json (what
 * `npm run bench` wrote): the figure changes when the measurement does, never by hand.
 */
import { PALETTE, round, svgDocument, text } from './svg.js';

/** The parts of bench/results.json the figure reads. */
export interface BenchResults {
  readonly generatedAt: string;
  readonly latency: {
    readonly idemkitVsPowertools: { readonly newKey: { median: number }; readonly replay: { median: number } };
  };
  readonly throughput: { readonly idemkitVsPowertools: number };
  readonly bundle: {
    readonly variants: { readonly bundled: Record<'idemkit' | 'powertools', { readonly bytes: number }> };
  };
  readonly writes: {
    readonly latencyRatios: Record<'idemkit/powertools' | 'stagedOnly/powertools', number>;
    readonly throughput: { readonly ratios: Record<'idemkit/powertools' | 'stagedOnly/powertools', number> };
  };
}

/** One bar: what was measured, its ratio, and which way is better. */
export interface RatioBar {
  readonly group: string;
  readonly label: string;
  readonly ratio: number;
  readonly better: 'lower' | 'higher';
}

/**
 * The bars of the figure, in the order the benchmark's write-up presents them.
 *
 * @example
 * ratioBars(JSON.parse(readFileSync('bench/results.json', 'utf8')))[0].ratio // 1.05
 */
export function ratioBars(results: BenchResults): RatioBar[] {
  const guarded = 'payment handler, no write of its own';
  const writing = 'handler that writes one item';
  const { bundled } = results.bundle.variants;
  return [
    {
      group: guarded,
      label: 'new-key latency (median)',
      ratio: results.latency.idemkitVsPowertools.newKey.median,
      better: 'lower',
    },
    {
      group: guarded,
      label: 'replay latency (median)',
      ratio: results.latency.idemkitVsPowertools.replay.median,
      better: 'lower',
    },
    {
      group: guarded,
      label: 'throughput, 32 callers',
      ratio: results.throughput.idemkitVsPowertools,
      better: 'higher',
    },
    {
      group: guarded,
      label: 'bundle size with the SDK',
      ratio: bundled.idemkit.bytes / bundled.powertools.bytes,
      better: 'lower',
    },
    {
      group: writing,
      label: 'new-key latency, default',
      ratio: results.writes.latencyRatios['idemkit/powertools'],
      better: 'lower',
    },
    {
      group: writing,
      label: "new-key latency, 'staged-only'",
      ratio: results.writes.latencyRatios['stagedOnly/powertools'],
      better: 'lower',
    },
    {
      group: writing,
      label: 'throughput, default',
      ratio: results.writes.throughput.ratios['idemkit/powertools'],
      better: 'higher',
    },
    {
      group: writing,
      label: "throughput, 'staged-only'",
      ratio: results.writes.throughput.ratios['stagedOnly/powertools'],
      better: 'higher',
    },
  ];
}

const WIDTH_PX = 1000;
const LABEL_WIDTH_PX = 380;
const BAR_HEIGHT_PX = 22;
const ROW_PX = 32;
const MAX_RATIO = 2;

/**
 * Renders the bars against a line at 1.0 (as fast, as large as Powertools).
 *
 * @example
 * writeFileSync('docs/bench-ratios.svg', renderBenchRatios(results))
 */
export function renderBenchRatios(results: BenchResults): string {
  const bars = ratioBars(results);
  const plotLeft = LABEL_WIDTH_PX + 20;
  const plotWidth = WIDTH_PX - plotLeft - 40;
  const x = (ratio: number): number => plotLeft + (Math.min(ratio, MAX_RATIO) / MAX_RATIO) * plotWidth;
  const parts = [
    text('idemkit ÷ Powertools idempotency, same handler, same DynamoDB Local', {
      xPx: 24,
      yPx: 30,
      sizePx: 18,
      bold: true,
    }),
    text(`bench/results.json of ${results.generatedAt.slice(0, 10)}; read the ratios, not the times`, {
      xPx: 24,
      yPx: 50,
      colour: PALETTE.muted,
    }),
  ];
  let y = 80;
  let group: string | undefined;
  const top = y;
  for (const bar of bars) {
    if (bar.group !== group) {
      group = bar.group;
      y += 8;
      parts.push(text(group, { xPx: 24, yPx: y + 10, bold: true }));
      y += 22;
    }
    const good = bar.better === 'lower' ? bar.ratio <= 1 : bar.ratio >= 1;
    parts.push(text(`${bar.label} (${bar.better} is better)`, { xPx: LABEL_WIDTH_PX, yPx: y + 15, anchor: 'end' }));
    parts.push(
      `<rect x="${plotLeft}" y="${y}" width="${round(x(bar.ratio) - plotLeft)}" height="${BAR_HEIGHT_PX}"` +
        ` fill="${good ? PALETTE.idemkit : PALETTE.reference}"/>`,
    );
    parts.push(text(`${bar.ratio.toFixed(2)}×`, { xPx: x(bar.ratio) + 6, yPx: y + 15, bold: true }));
    y += ROW_PX;
  }
  const one = x(1);
  parts.push(
    `<line x1="${round(one)}" y1="${top}" x2="${round(one)}" y2="${y}" stroke="${PALETTE.accent}" stroke-dasharray="5 4"/>`,
  );
  parts.push(text('1.0 = Powertools', { xPx: one, yPx: y + 16, anchor: 'middle', colour: PALETTE.accent }));
  parts.push(text('blue: better than Powertools; grey: not', { xPx: 24, yPx: y + 40, colour: PALETTE.muted }));
  return svgDocument(parts, {
    widthPx: WIDTH_PX,
    heightPx: y + 56,
    title: 'Benchmark ratios of idemkit to Powertools idempotency: latency, throughput and bundle size',
  });
}
