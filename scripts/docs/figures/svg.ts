/** What every figure of the documentation shares: escaping, text, and the document around the drawing. */

/** The site's palette, one colour per meaning, so a figure reads like its neighbours. */
export const PALETTE = Object.freeze({
  ink: '#1f2328',
  muted: '#59636e',
  grid: '#d1d9e0',
  free: '#eef1f4',
  inProgress: '#fff1c2',
  completed: '#d7f5dd',
  unknown: '#ffd8d3',
  idemkit: '#1f77b4',
  reference: '#9aa4ae',
  accent: '#d62728',
});

/** Text escaped for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Where and how one `<text>` element is drawn. */
export interface TextOptions {
  readonly xPx: number;
  readonly yPx: number;
  /** @default 13 */
  readonly sizePx?: number;
  /** @default 'start' */
  readonly anchor?: 'start' | 'middle' | 'end';
  /** @default false */
  readonly bold?: boolean;
  /** @default PALETTE.ink */
  readonly colour?: string;
}

/**
 * One `<text>` element.
 *
 * @example
 * text('Leased', { xPx: 10, yPx: 20, bold: true })
 */
export function text(content: string, options: TextOptions): string {
  const weight = options.bold ? ' font-weight="600"' : '';
  return (
    `<text x="${round(options.xPx)}" y="${round(options.yPx)}" font-size="${options.sizePx ?? 13}"` +
    ` text-anchor="${options.anchor ?? 'start'}" fill="${options.colour ?? PALETTE.ink}"${weight}>${escapeXml(content)}</text>`
  );
}

/**
 * Words wrapped into lines of at most `maxCharacters` (a word longer than that gets a line of its own).
 *
 * @example
 * wrapWords('absent, or past expiresAt with no live lease', 24) // ['absent, or past expiresAt', ...]
 */
export function wrapWords(content: string, maxCharacters: number): string[] {
  const lines: string[] = [];
  for (const word of content.split(/\s+/).filter(Boolean)) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= maxCharacters)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** A number with at most one decimal, as SVG coordinates are written (keeps the files small and stable). */
export function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The size and the accessible title of a figure. */
export interface DocumentOptions {
  readonly widthPx: number;
  readonly heightPx: number;
  /** Read by screen readers and shown as the tooltip. */
  readonly title: string;
}

/**
 * A standalone SVG document around drawn elements, on a white background (the site has a dark mode).
 *
 * @example
 * svgDocument([text('hello', { xPx: 10, yPx: 20 })], { widthPx: 100, heightPx: 40, title: 'hello' })
 */
export function svgDocument(elements: readonly string[], options: DocumentOptions): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${options.widthPx}" height="${options.heightPx}"` +
      ` viewBox="0 0 ${options.widthPx} ${options.heightPx}" role="img" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">`,
    `<title>${escapeXml(options.title)}</title>`,
    `<rect width="${options.widthPx}" height="${options.heightPx}" fill="#ffffff"/>`,
    ...elements,
    '</svg>',
    '',
  ].join('\n');
}
