/** Prints the demo as an incident log: one timeline per scenario, then a verdict. */
export class Narrator {
  private scenarioStartMs = 0;
  readonly verdicts: Array<{ title: string; ok: boolean; summary: string }> = [];

  constructor(private readonly write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)) {}

  /** Starts a scenario's timeline. */
  scenario(index: number, title: string, setting: string): void {
    this.scenarioStartMs = performance.now();
    this.write('');
    this.write(`━━ ${index}. ${title}`);
    this.write(`   ${setting}`);
  }

  /** One event on the timeline, stamped with the time since the scenario began. */
  event(actor: string, text: string): void {
    const seconds = ((performance.now() - this.scenarioStartMs) / 1000).toFixed(3).padStart(7);
    this.write(`   T+${seconds}s  ${actor.padEnd(10)} ${text}`);
  }

  /**
   * Ends the scenario with whether the toolkit held its promise. `summary` states only what held:
   * a check mark never stands beside a cost (calls that failed); say that with {@link price}.
   */
  verdict(title: string, ok: boolean, summary: string): void {
    this.verdicts.push({ title, ok, summary });
    this.write(`   ${ok ? '✔' : '✘'} ${summary}`);
  }

  /** What a scenario's choice costs, stated after its verdict with a mark of its own. */
  price(text: string): void {
    this.write(`   ⚠ ${text}`);
  }

  /** A plain line. */
  line(text = ''): void {
    this.write(text);
  }

  /** Rows as an aligned text table, indented under the last line. */
  table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
    const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]?.length ?? 0)));
    const line = (cells: readonly string[]) =>
      cells
        .map((cell, i) => (cell ?? '').padEnd(widths[i]!))
        .join('  ')
        .trimEnd();
    for (const row of [headers, widths.map((width) => '-'.repeat(width)), ...rows]) this.write(`  ${line(row)}`);
  }
}
