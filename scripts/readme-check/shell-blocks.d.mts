/** Types of shell-blocks.mjs, for the TypeScript that reads the blocks (the unit test of the markers). */

/** Where a shell block runs, or why the README check leaves it. */
export type ShellBlockKind = 'clone' | 'project' | 'aws-account' | 'docker' | 'ci';

/** One fenced shell block: the line its code starts on, its kind and its code. */
export interface ShellBlock {
  readonly line: number;
  readonly kind: ShellBlockKind;
  readonly code: string;
}

/** A TypeScript or JavaScript block that names its file on its first line (`// handler.ts`, `// jest.config.js`). */
export interface FileBlock {
  readonly line: number;
  readonly name: string;
  readonly code: string;
}

/** A TypeScript block that names no file: a sample to compile. */
export interface SampleBlock {
  readonly line: number;
  readonly code: string;
}

/** The README, then every guide, relative to `root`. */
export declare function documentsOf(root: string): string[];

/** The shell blocks, the named TypeScript and JavaScript blocks and the other TypeScript blocks of a markdown text. */
export declare function blocksOf(markdown: string): { shell: ShellBlock[]; files: FileBlock[]; samples: SampleBlock[] };

/** The npm commands a block runs, each once. */
export declare function npmCommandsOf(code: string): string[];

/** The npm commands of a block that the given `.ci/run` text does not run. */
export declare function missingFromCi(code: string, ciScript: string): string[];

/** The block with the named placeholder assignments given the check's values. */
export declare function withPlaceholders(code: string, values: Record<string, string>): string;

/** The HTTP statuses a block's comments promise for its `curl -i` and local invoke commands, in order. */
export declare function expectedStatusesOf(code: string): number[];

/** The statuses a session printed, in order (curl's status lines, the local invoke's `"statusCode"`). */
export declare function observedStatusesOf(output: string): number[];
