/**
 * `tsx scripts/docs/check-links.ts site`: every link and image inside the built site points at a
 * file of the site and, when it names an anchor, at an element with that id. TypeDoc checks the
 * files a guide links to; only the built pages show whether `guide.md#a-heading` still names a
 * heading. Prints each broken link with the page it is on and exits 1 when there is one.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One link of a page that leads nowhere. */
export interface BrokenLink {
  readonly page: string;
  readonly target: string;
  readonly reason: 'no such file' | 'no such anchor';
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/**
 * The broken internal links of every HTML page under `siteDir`.
 *
 * @example
 * brokenLinks('site') // [] when every link lands
 */
export function brokenLinks(siteDir: string): BrokenLink[] {
  const root = resolve(siteDir);
  const pages = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.html'))
    .map((file) => join(root, file));
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (page: string): Set<string> => {
    let ids = anchorsOf.get(page);
    if (!ids) {
      const html = readFileSync(page, 'utf8');
      ids = new Set([...html.matchAll(/\s(?:id|name)="([^"]+)"/g)].map((match) => match[1]));
      anchorsOf.set(page, ids);
    }
    return ids;
  };
  const broken: BrokenLink[] = [];
  for (const page of pages) {
    const html = readFileSync(page, 'utf8');
    for (const [, target] of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      if (target === '' || EXTERNAL.test(target)) continue;
      const [pathPart, anchor] = decodeEntities(target).split('#', 2);
      const file = pathPart === '' ? page : resolve(dirname(page), decodeURIComponent(pathPart.split('?')[0]));
      const shown = relative(root, page);
      if (!existsSync(file)) broken.push({ page: shown, target, reason: 'no such file' });
      else if (anchor && file.endsWith('.html') && !anchors(file).has(decodeURIComponent(anchor)))
        broken.push({ page: shown, target, reason: 'no such anchor' });
    }
  }
  return broken;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const siteDir = process.argv[2] ?? 'site';
  const broken = brokenLinks(siteDir);
  for (const link of broken) console.error(`${link.page}: ${link.target} (${link.reason})`);
  console.log(`${siteDir}: ${broken.length} broken links`);
  process.exitCode = broken.length > 0 ? 1 : 0;
}
