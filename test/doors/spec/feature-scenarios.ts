import { readFileSync } from 'node:fs';
import { AstBuilder, compile, GherkinClassicTokenMatcher, Parser } from '@cucumber/gherkin';
import { IdGenerator } from '@cucumber/messages';

/** One scenario of a feature file, its background's steps first, as Cucumber would run it. */
export interface FeatureScenario {
  readonly name: string;
  /** The steps' text, without their keyword (`an Idempotency-Key "abc"`). */
  readonly steps: readonly string[];
}

/**
 * The scenarios of the Gherkin feature at `path` (Cucumber's own parser and pickle compiler: a
 * scenario outline gives one scenario per example row).
 *
 * @example scenariosOf('test/doors/spec/ietf-draft.feature')[0].name // 'A new key runs the handler and its answer is recorded'
 */
export function scenariosOf(path: string): FeatureScenario[] {
  const newId = IdGenerator.incrementing();
  const document = new Parser(new AstBuilder(newId), new GherkinClassicTokenMatcher()).parse(
    readFileSync(path, 'utf8'),
  );
  return compile(document, path, newId).map((pickle) => ({
    name: pickle.name,
    steps: pickle.steps.map((step) => step.text),
  }));
}
