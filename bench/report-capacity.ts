import { ON_DEMAND_PRICE } from './harness/capacity-meter.js';
import {
  BILLED,
  BILLED_SITUATIONS,
  BILLED_TITLES,
  HANDLERS,
  type Bill,
  type BilledSituation,
  type CapacityResult,
  type HandlerKind,
} from './scenarios/capacity.js';

/** Markers around a section of RESULTS.md that a full `npm run bench` keeps as it is. */
export interface SectionMarkers {
  readonly start: string;
  readonly end: string;
}

/** The markers around the capacity section of RESULTS.md, which `npm run bench:capacity` rewrites. */
export const CAPACITY_SECTION: SectionMarkers = { start: '<!-- capacity:start -->', end: '<!-- capacity:end -->' };
/** The markers around the hot-key section, written by `bench/hot-key-burst.ts`. */
export const HOT_KEY_SECTION: SectionMarkers = { start: '<!-- hot-keys:start -->', end: '<!-- hot-keys:end -->' };
/** The markers around the shared replay cache section, written by `npm run bench:valkey-cache`. */
export const VALKEY_CACHE_SECTION: SectionMarkers = {
  start: '<!-- valkey-cache:start -->',
  end: '<!-- valkey-cache:end -->',
};
/** The markers around the Valkey journal section, from `npm run bench:valkey` (a redis-server of its own). */
export const VALKEY_JOURNAL_SECTION: SectionMarkers = {
  start: '<!-- valkey-journal:start -->',
  end: '<!-- valkey-journal:end -->',
};
/**
 * The markers around the cold-start and per-request section, written from `bench/cold-start.ts`,
 * `bench/per-request.ts` and `bench/staged-breakdown.ts` (separate processes, measured apart).
 */
export const COLD_START_SECTION: SectionMarkers = {
  start: '<!-- cold-start:start -->',
  end: '<!-- cold-start:end -->',
};

/** `text` with the section between `markers` replaced by `body` (appended when absent). */
export function replaceSection(text: string, markers: SectionMarkers, body: string): string {
  const block = `${markers.start}\n${body.trimEnd()}\n${markers.end}`;
  const start = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  if (start === -1 || end === -1) return `${text.trimEnd()}\n\n${block}\n`;
  return `${text.slice(0, start)}${block}${text.slice(end + markers.end.length)}`;
}

/** The section between `markers` in `text`, markers included, or undefined. */
export function sectionOf(text: string, markers: SectionMarkers): string | undefined {
  const start = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  return start === -1 || end === -1 ? undefined : text.slice(start, end + markers.end.length);
}

const dollars = (value: number) => `$${value.toFixed(3)}`;

function cell(bill: Bill): string {
  const refused = bill.calls.some((c) => c.source === 'rules') ? '*' : '';
  const units = [bill.writeUnits ? `${bill.writeUnits} W` : '', bill.readUnits ? `${bill.readUnits} R` : '']
    .filter(Boolean)
    .join(' + ');
  const calls = bill.calls.map((c) => c.command).join(' + ') || 'no call';
  return `${units || '0'}${refused} · ${dollars(bill.dollarsPerMillion)} · ${calls} → ${bill.answer}`;
}

/**
 * The retry share above which `'read-first'` costs less than `'put-first'`: a new key pays one
 * more read, every retry that meets a record saves the refused write's price less the read's.
 */
export function breakEvenShare(result: CapacityResult, kind: HandlerKind, situation: BilledSituation): number {
  const extraPerNewKey =
    result.idemkitReadFirst[kind].newKey.dollarsPerMillion - result.idemkit[kind].newKey.dollarsPerMillion;
  const savedPerRetry =
    result.idemkit[kind][situation].dollarsPerMillion - result.idemkitReadFirst[kind][situation].dollarsPerMillion;
  return savedPerRetry <= 0 ? Number.POSITIVE_INFINITY : extraPerNewKey / (extraPerNewKey + savedPerRetry);
}

const percent = (share: number) => (Number.isFinite(share) ? `${(share * 100).toFixed(1)} %` : 'never');

/** The capacity section of RESULTS.md. */
export function renderCapacity(result: CapacityResult): string {
  const lines: string[] = [];
  const w = ON_DEMAND_PRICE.writeRequestUnitPerMillion;
  const r = ON_DEMAND_PRICE.readRequestUnitPerMillion;
  lines.push('## DynamoDB capacity and cost per request');
  lines.push('');
  lines.push(
    `Written by \`npm run bench:capacity\` (raw numbers in [capacity.json](capacity.json)). Every call carries ` +
      "`ReturnConsumedCapacity: 'TOTAL'`; a middleware on each guard's own client sums the units of each attempt, " +
      "the business handler's own write included. Deterministic: units depend on item sizes, not on the machine.",
  );
  lines.push('');
  lines.push(
    '- **Where the units come from.** Successful calls: what DynamoDB Local reports (`ConsumedCapacity`; it reports ' +
      'transactions at two units per item-KB and a strongly consistent `GetItem` of a missing item at one read unit, ' +
      'as DynamoDB bills them). Refused calls (marked `*`): neither DynamoDB nor DynamoDB Local returns ' +
      '`ConsumedCapacity` with a `ConditionalCheckFailedException` or a `TransactionCanceledException`, so these are ' +
      "computed from AWS's documented rules: a failed conditional write is billed as a write of the larger of the " +
      'stored and the new item, one write unit per KB rounded up (the stored item is read, uncounted, just before the ' +
      'call); a cancelled transaction is counted as the commit it would have been, two write units per item-KB — an ' +
      'upper bound, since AWS documents no lower charge for it.',
  );
  lines.push(
    `- **Price.** On-demand, DynamoDB Standard table class, ${ON_DEMAND_PRICE.region} (US East, N. Virginia): ` +
      `$${w} per million write request units, $${r} per million read request units (the rates since the ` +
      'November 2024 price cut). A cell reads: units · dollars per million such requests · calls → answer.',
  );
  lines.push(
    '- **Setups.** The bench\'s `POST /payments` handler and HTTP API events (see "Setup" above); Powertools as there ' +
      '(it stores the whole response, uncompressed). idemkit with its defaults, `ttlSeconds` one day.',
  );
  for (const kind of Object.keys(HANDLERS) as HandlerKind[]) {
    lines.push('');
    lines.push(`### Handler: ${HANDLERS[kind]}`);
    lines.push('');
    lines.push(`| situation | ${BILLED.map((b) => BILLED_TITLES[b]).join(' | ')} |`);
    lines.push(`|---|${BILLED.map(() => '---').join('|')}|`);
    for (const situation of Object.keys(BILLED_SITUATIONS) as BilledSituation[]) {
      lines.push(
        `| ${BILLED_SITUATIONS[situation]} | ${BILLED.map((b) => cell(result[b][kind][situation])).join(' | ')} |`,
      );
    }
  }
  lines.push('');
  lines.push("### Reservation shapes: `'put-first'` (default) against `'read-first'`");
  lines.push('');
  lines.push(
    "`'read-first'` pays one more read unit ($0.125 per million) on every new key and saves, on every attempt " +
      'that meets a record (a replay, a duplicate, a mismatch), the refused write less the read. It costs less ' +
      'when the share of such attempts among all attempts exceeds:',
  );
  lines.push('');
  lines.push('| handler | replays | in-flight duplicates | mismatches |');
  lines.push('|---|---|---|---|');
  for (const kind of Object.keys(HANDLERS) as HandlerKind[]) {
    lines.push(
      `| ${HANDLERS[kind]} | ${percent(breakEvenShare(result, kind, 'replay'))} | ` +
        `${percent(breakEvenShare(result, kind, 'inFlight'))} | ${percent(breakEvenShare(result, kind, 'mismatch'))} |`,
    );
  }
  lines.push('');
  lines.push(
    'With a record under 1 KB the refused write costs one write unit ($0.625) against one read unit ($0.125): ' +
      '`read-first` wins above 20 % retries. The larger the stored record, the sooner it wins (a record of n KB: ' +
      '1 / (1 + 5n − ⌈n/4⌉) of attempts). It also adds a round trip to every new key; that latency, not the bill, ' +
      'is why `put-first` stays the default.',
  );
  return lines.join('\n');
}
