/**
 * `npm run docs:check` (after `npm run docs`): serves site/ on 127.0.0.1 and opens it in headless
 * Chromium (Debian's `chromium` package, through playwright-core; no browser download). It
 * checks the home page, a guide and an API page render: a title, the navigation (on the home
 * page: a link to every guide of typedoc.config.mjs, so each is reachable from there), a code
 * block, and every image loaded. One screenshot per page goes to DOCS_ARTIFACTS_DIR (default
 * .artifacts/docs). Exits 1 with the failed checks listed; stops the browser and the server it
 * started whatever happens.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import sirv from 'sirv';
import { GUIDES } from '../../typedoc.config.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const SITE_DIR = join(ROOT, 'site');
const ARTIFACTS_DIR = process.env.DOCS_ARTIFACTS_DIR ?? join(ROOT, '.artifacts', 'docs');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// What the machine's notes ask of a headless Chromium here: no sandbox (root), no GPU, and
// nothing that reaches the network on its own.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const PAGE_TIMEOUT_MS = 30_000;

/** One page to open, and what it must show besides a title, the navigation and a code block. */
interface PageCheck {
  readonly name: string;
  readonly path: string;
  /** Link texts the page's navigation must hold. */
  readonly navigationHolds: readonly string[];
  /** A page of tables and prose only (bench/RESULTS.md) need not show a code block. */
  readonly withoutCode?: true;
}

/** A guide's title, as the site shows it: its first heading without code marks. */
function guideTitle(file: string): string {
  const heading = /^#\s+(.+)$/m.exec(readFileSync(join(ROOT, file), 'utf8'));
  if (!heading) throw new Error(`${file} has no heading`);
  return heading[1].replace(/`/g, '').trim();
}

const CHECKS: readonly PageCheck[] = [
  { name: 'home', path: '/index.html', navigationHolds: GUIDES.map(guideTitle) },
  { name: 'guide', path: '/documents/Getting_started.html', navigationHolds: ['Getting started'] },
  { name: 'api', path: '/functions/idemkit.httpIdempotency.html', navigationHolds: ['idemkit', 'idemkit/client'] },
  // The widest tables of the site: they scroll inside the text column (scripts/docs/site.css).
  {
    name: 'bench',
    path: '/documents/Benchmarks__idemkit_and_the_Powertools_idempotency_utility.html',
    navigationHolds: ['Benchmarks and the soak'],
    withoutCode: true,
  },
];

async function checkPage(page: Page, origin: string, check: PageCheck): Promise<string[]> {
  const problems: string[] = [];
  const response = await page.goto(origin + check.path, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
  if (!response?.ok()) return [`${check.path}: HTTP ${response?.status() ?? 'no answer'}`];
  // TypeDoc fills the navigation from a compressed script after load.
  await page.waitForSelector('#tsd-nav-container a', { timeout: PAGE_TIMEOUT_MS });
  const title = await page.title();
  if (!title.includes('idemkit')) problems.push(`${check.path}: title is '${title}'`);
  const navigation = await page.$$eval('#tsd-nav-container a', (links) =>
    links.map((link) => link.textContent?.trim() ?? ''),
  );
  for (const text of check.navigationHolds) {
    if (!navigation.includes(text)) problems.push(`${check.path}: the navigation has no link '${text}'`);
  }
  const codeBlocks = await page.$$eval(
    'pre code',
    (blocks) => blocks.filter((block) => block.textContent!.trim() !== '').length,
  );
  if (codeBlocks === 0 && !check.withoutCode) problems.push(`${check.path}: no code block`);
  const heading = await page.$eval('h1, h2', (element) => element.textContent?.trim() ?? '').catch(() => '');
  if (heading === '') problems.push(`${check.path}: no heading`);
  const brokenImages = await page.$$eval('img', (images) =>
    images.filter((image) => !image.complete || image.naturalWidth === 0).map((image) => image.getAttribute('src')),
  );
  for (const src of brokenImages) problems.push(`${check.path}: image ${src} did not load`);
  // A wide table scrolls inside the text column instead of spilling over the page menu.
  const spillsPx = await page.$eval('.col-content', (column) => {
    const rightPx = column.getBoundingClientRect().right;
    return Array.from(column.querySelectorAll('table')).map((table) =>
      Math.round(table.getBoundingClientRect().right - rightPx),
    );
  });
  for (const px of spillsPx.filter((px) => px > 0))
    problems.push(`${check.path}: a table reaches ${px} px past the text column`);
  await page.screenshot({ path: join(ARTIFACTS_DIR, `${check.name}.png`), fullPage: false });
  console.log(
    `${check.name} ${check.path}: '${title}', ${navigation.length} navigation links, ${codeBlocks} code blocks`,
  );
  return problems;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function main(): Promise<number> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const server = createServer(sirv(SITE_DIR, { dev: false, etag: true }));
  const profile = mkdtempSync(join(tmpdir(), 'idemkit-docs-chromium-'));
  let context: Awaited<ReturnType<typeof chromium.launchPersistentContext>> | undefined;
  try {
    const origin = await listen(server);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    // The site is served from loopback; anything it asks of another host would be a dependency
    // the offline build did not catch.
    const outside: string[] = [];
    await page.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => {
      outside.push(route.request().url());
      return route.abort();
    });
    const problems: string[] = [];
    for (const check of CHECKS) problems.push(...(await checkPage(page, origin, check)));
    problems.push(...outside.map((url) => `the site asked for ${url}`));
    for (const problem of problems) console.error(problem);
    console.log(
      `docs browser check: ${CHECKS.length} pages, ${problems.length} problems; screenshots in ${ARTIFACTS_DIR}`,
    );
    return problems.length === 0 ? 0 : 1;
  } finally {
    await context?.close();
    await new Promise((resolve) => server.close(resolve));
    rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
