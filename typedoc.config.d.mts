/** Types of typedoc.config.mjs, for the scripts that read its lists (the browser check reads GUIDES). */
import type { TypeDocOptions } from 'typedoc';

/** The guides, in the order the site's navigation lists them. */
export declare const GUIDES: readonly string[];
/** The sources of the package's entries, from package.json's exports. */
export declare const ENTRY_POINTS: readonly string[];
declare const options: Partial<TypeDocOptions>;
export default options;
