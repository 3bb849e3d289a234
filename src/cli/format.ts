import { keyScopeOf, type JournalRecord } from '../journal/index.js';
import type { StuckRecord } from './operator.js';

/** Renders rows as an aligned text table. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (cell ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The stuck records as a table. */
export function stuckTable(records: readonly StuckRecord[]): string {
  if (records.length === 0) return 'No stuck records.';
  return table(
    ['PK', 'STATUS', 'ATTEMPT', 'LEASE EXPIRED', 'EFFECT', 'EVIDENCE'],
    records.map((r) => [
      r.pk,
      r.status,
      String(r.attempt),
      r.leaseExpiredMsAgo === undefined ? '-' : `${Math.round(r.leaseExpiredMsAgo / 1000)} s ago`,
      r.effectName ?? '-',
      Object.entries(r.evidence)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ') || '-',
    ]),
  );
}

/** One record as a timeline an operator can read. */
export function timeline(record: JournalRecord, nowEpochMs: number): string {
  const at = (epochMs: number) => new Date(epochMs).toISOString();
  const scope = keyScopeOf(record.pk);
  const lines = [
    `record     ${record.pk}`,
    ...(scope?.kind === 'request'
      ? [`scope      tenant '${scope.tenant}', operation '${scope.operation}', key '${scope.key}'`]
      : []),
    ...(scope?.kind === 'message' ? [`scope      consumer '${scope.consumer}', message '${scope.messageId}'`] : []),
    `status     ${record.status}`,
    `created    ${at(record.createdAtEpochMs)}`,
    `updated    ${at(record.updatedAtEpochMs)}`,
    `attempts   ${record.attempt}`,
    `lease      until ${at(record.leaseUntilEpochMs)} (${record.leaseUntilEpochMs < nowEpochMs ? 'expired' : 'held'})`,
    `effect     ${record.effectStarted ? `started (${record.effectName ?? 'effect'})` : 'not started'}`,
    `evidence   ${
      Object.entries(record.evidence)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ') || '-'
    }`,
    `expires    ${record.expiresAtEpochSeconds === undefined ? 'never (needs an outcome)' : at(record.expiresAtEpochSeconds * 1000)}`,
    `fingerprint ${record.fingerprint}`,
  ];
  if (record.response) lines.push(`outcome    ${truncate(JSON.stringify(record.response.value) ?? 'undefined', 400)}`);
  return lines.join('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
