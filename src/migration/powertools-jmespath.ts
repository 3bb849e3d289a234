import {
  EmptyExpressionError,
  IncompleteExpressionError,
  LexerError,
  ParseError,
  search,
  UnknownFunctionError,
} from '@aws-lambda-powertools/jmespath';
import { PowertoolsFunctions } from '@aws-lambda-powertools/jmespath/functions';
import { InvalidOptionsError } from '../core/index.js';
import type { PowertoolsSearch, PowertoolsSource } from './powertools-options.js';

/** Errors of the expression itself, as opposed to errors of evaluating it on one event. */
const SYNTAX_ERRORS = [LexerError, ParseError, IncompleteExpressionError, EmptyExpressionError, UnknownFunctionError];

/**
 * Powertools' own JMESPath, bound to the functions the expressions may call, once both
 * expressions are known to compile. This module is imported on first need only
 * (`loadPowertoolsSearch`): only a `migrateFrom` lookup uses it, and a guard installed from
 * `node_modules` would otherwise read and compile its 15 files at every cold start.
 *
 * @throws InvalidOptionsError naming the option whose expression does not compile
 */
export function compilePowertoolsSearch(factory: string, source: PowertoolsSource): PowertoolsSearch {
  const options = { customFunctions: source.jmesPathFunctions ?? new PowertoolsFunctions() };
  const expressions = [
    ['eventKeyJmesPath', source.eventKeyJmesPath],
    ['payloadValidationJmesPath', source.payloadValidationJmesPath],
  ] as const;
  for (const [option, expression] of expressions) {
    if (!expression) continue;
    try {
      search(expression, {}, options);
    } catch (error) {
      if (SYNTAX_ERRORS.some((type) => error instanceof type))
        throw new InvalidOptionsError(
          `${factory}: option 'migrateFrom' (fromPowertools option '${option}') is not a valid JMESPath expression: ${(error as Error).message}`,
        );
    }
  }
  return (expression, data) => search(expression, data as never, options);
}
