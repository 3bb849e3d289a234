/**
 * A TypeDoc plugin that keeps a heading's code spans in the page's "On This Page" list.
 *
 * TypeDoc names a heading in that list by the heading's text tokens only, so
 * "## The scope: `idempotencyOf(c)`" was listed as "The scope:". Once a page's markdown is
 * rendered, each heading of it gets the text its rendered HTML shows, code included, as plain
 * text. The anchor stays TypeDoc's own (docs/documentation.md: a code span is left out of it),
 * so no link into the guides changes.
 */
import { MarkdownEvent } from 'typedoc';

/** A heading as TypeDoc renders it: its anchor id, then its inner HTML up to the anchor icon. */
const RENDERED_HEADING = /<h[1-6] id="([^"]+)" class="tsd-anchor-link">([\s\S]*?)<a href="#\1"/g;

/** The four characters markdown-it escapes in text and code spans, and back. */
const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };

/** @param {string} html */
function plainText(html) {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot);/g, (entity) => ENTITIES[entity])
    .replace(/\s+/g, ' ')
    .trim();
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  // After TypeDoc's own markdown listener (priority 0), which renders the HTML and lists the headings.
  app.renderer.on(
    MarkdownEvent.PARSE,
    (event) => {
      const headings = event.page?.pageHeadings;
      if (!headings?.length) return;
      for (const [, id, inner] of event.parsedText.matchAll(RENDERED_HEADING)) {
        const heading = headings.findLast(({ link }) => link === `#${id}`);
        const text = plainText(inner);
        if (heading && text) heading.text = text;
      }
    },
    -100,
  );
}
