/**
 * The documentation site (`npm run docs`): TypeDoc renders the guides under docs/ as project
 * documents and the API reference from the TSDoc of every public entry, into site/.
 * docs/documentation.md says why TypeDoc alone and how the build is checked.
 */
import { packageEntries } from './scripts/docs/package-entries.mjs';

/** The guides, in the order the site's navigation lists them: adding a guide is one line here. */
export const GUIDES = [
  'docs/getting-started.md',
  'docs/testing-your-handlers.md',
  'docs/http.md',
  'docs/streaming.md',
  'docs/functions.md',
  'docs/queues.md',
  'docs/streams.md',
  'docs/outbox.md',
  'docs/crash-safety.md',
  'docs/staged-only.md',
  'docs/hot-keys.md',
  'docs/client.md',
  'docs/multi-region.md',
  'docs/valkey.md',
  'docs/durable-functions.md',
  'docs/migrating-from-powertools.md',
  'docs/cdk.md',
  'docs/operations.md',
  'docs/example-service.md',
  'docs/protocol.md',
  'docs/hot-key-simulation.md',
  'docs/benchmarks-and-soak.md',
  'docs/soak.md',
  'bench/RESULTS.md',
  'docs/development.md',
  'docs/documentation.md',
];

/** The API reference covers exactly what package.json exports (scripts/docs/package-entries.mjs). */
export const ENTRY_POINTS = packageEntries(import.meta.dirname).map(({ source }) => source);

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'idemkit',
  entryPoints: ENTRY_POINTS,
  entryPointStrategy: 'resolve',
  tsconfig: 'tsconfig.build.json',
  projectDocuments: GUIDES,
  readme: 'README.md',
  out: 'site',
  plugin: ['./scripts/docs/entry-names.mjs', './scripts/docs/heading-text.mjs'],
  // Wide tables scroll inside the text column.
  customCss: './scripts/docs/site.css',
  excludePrivate: true,
  excludeInternal: true,
  disableGit: true,
  disableSources: true,
  githubPages: true,
  hideGenerator: true,
  sortEntryPoints: false,
  searchInDocuments: true,
  // The README and each guide open with their own heading; TypeDoc's would repeat it.
  headings: { readme: false, document: false },
  // Entries are named by import path (idemkit/sqs): listed flat, not folded into an 'idemkit' folder.
  navigation: { includeFolders: false },
  // docs/protocol.md keeps its state diagram as mermaid source for GitHub; the site shows the SVG drawn from it.
  ignoredHighlightLanguages: ['mermaid'],
  validation: { notExported: true, invalidLink: true, invalidPath: true, rewrittenLink: true, notDocumented: true },
  // Every export of an entry carries its own summary; members of a documented type may lean on it.
  requiredToBeDocumented: ['Enum', 'Variable', 'Function', 'Class', 'Interface', 'TypeAlias', 'Namespace'],
  // Function-valued members whose meaning their owner's summary gives (a default that is Date.now, a
  // Powertools Tracer method): documenting them again would only repeat it.
  intentionallyNotDocumented: [
    'idemkit.TracerLike.putAnnotation',
    'idemkit.TracerLike.captureAWSv3Client',
    'idemkit.DEFAULT_GUARD_OPTIONS.__type.clock',
    'idemkit.LambdaContextLike.getRemainingTimeInMillis',
    'idemkit.DEFAULT_SQS_CONSUMER_OPTIONS.__type.messageId',
  ],
  treatWarningsAsErrors: true,
  logLevel: 'Info',
};
