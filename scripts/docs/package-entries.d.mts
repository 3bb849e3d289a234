/** Types of package-entries.mjs, for the TypeScript that reads the entries (the samples test). */

/** One public entry: its import path and its source file, relative to the repository's root. */
export interface PackageEntry {
  readonly name: string;
  readonly source: string;
}

/** Every entry of the package.json in `root` whose exports have a types condition, in the order it lists them. */
export declare function packageEntries(root: string): PackageEntry[];
