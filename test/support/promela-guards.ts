import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The `#define`s of the protocol model (model/journal.pml), evaluated in JavaScript: a macro is
 * expanded (arguments, nested macros, status constants) until only the model's variables remain,
 * then evaluated over one state of them. Promela's `&&`, `||`, `!`, `==` and `!=` mean the same in
 * JavaScript, so the expanded text runs as it is.
 */

const MODEL = readFileSync(join(__dirname, '../../model/journal.pml'), 'utf8');

interface Macro {
  readonly params: readonly string[];
  readonly body: string;
}

const macros = new Map<string, Macro>();
for (const line of MODEL.split('\n')) {
  const match = /^#define (\w+)(?:\(([^)]*)\))? (.+)$/.exec(line.trim());
  if (match)
    macros.set(match[1]!, { params: match[2] ? match[2].split(',').map((p) => p.trim()) : [], body: match[3]! });
}

/**
 * The model's variables a guard or decision reads (`exists`, `status`, `tok`, `live`, `sst`, the claim's `cex`,
 * `chold`, …): numbers or booleans.
 */
export type ModelState = Readonly<Record<string, boolean | number>>;

/** The text of a macro with every macro in it expanded, its arguments bound to `args`. */
export function expand(name: string, args: readonly string[] = []): string {
  const macro = macros.get(name);
  if (!macro) throw new Error(`model/journal.pml has no #define ${name}`);
  let body = macro.body.replace(/\/\*.*?\*\//g, '').trim();
  macro.params.forEach((param, i) => {
    body = body.replace(new RegExp(`\\b${param}\\b`, 'g'), `(${args[i]})`);
  });
  // Innermost calls first: a macro with arguments, then a bare name.
  for (let guard = 0; guard < 50; guard++) {
    const call = /\b([A-Z][A-Z_]*)\(([^()]*)\)/.exec(body);
    const bare = [...macros.keys()].find(
      (key) => macros.get(key)!.params.length === 0 && new RegExp(`\\b${key}\\b`).test(body),
    );
    if (call && macros.has(call[1]!)) {
      body = body.replace(
        call[0],
        `(${expand(
          call[1]!,
          call[2]!.split(',').map((a) => a.trim()),
        )})`,
      );
    } else if (bare) {
      body = body.replace(new RegExp(`\\b${bare}\\b`, 'g'), `(${expand(bare)})`);
    } else {
      return body;
    }
  }
  throw new Error(`#define ${name} does not expand`);
}

const VARIABLES = [
  'exists',
  'status',
  'tok',
  'live',
  'hasEx',
  'expired',
  'eff',
  'sst',
  'slive',
  'seff',
  // The claim item of held uniqueness claims.
  'cex',
  'cown',
  'ccrt',
  'chold',
  'cpin',
] as const;

/** Variables that hold numbers (the rest are booleans): 0 when a state leaves them out. */
const NUMERIC: ReadonlySet<string> = new Set(['status', 'tok', 'sst', 'cown', 'ccrt', 'chold']);

/** Evaluates macro `name` (with `args`) over `state`. */
export function evaluate(name: string, state: ModelState, args: readonly string[] = []): boolean {
  const text = expand(name, args);
  const run = new Function(...VARIABLES, `return Boolean(${text});`) as (...values: unknown[]) => boolean;
  return run(...VARIABLES.map((variable) => state[variable] ?? (NUMERIC.has(variable) ? 0 : false)));
}

/** Every combination of the given boolean and numeric choices. */
export function statesOf<K extends string>(
  choices: Record<K, readonly (boolean | number)[]>,
): Array<Record<K, boolean | number>> {
  return (Object.keys(choices) as K[]).reduce<Array<Record<K, boolean | number>>>(
    (states, key) => states.flatMap((state) => choices[key].map((value) => ({ ...state, [key]: value }))),
    [{} as Record<K, boolean | number>],
  );
}

/** The model's status constants. */
export const MODEL_STATUS = { INP: Number(expand('INP')), DONE: Number(expand('DONE')), UNK: Number(expand('UNK')) };
