/**
 * DynamoDB condition expressions evaluated on an item in memory, for the one place the journal
 * must decide a condition itself: a multi-Region write that kept meeting cross-Region conflicts
 * (see `replicated-writes.ts`) is decided on the item read afterwards, as DynamoDB would have
 * decided it. Evaluating the expression text, rather than keeping a second copy of each
 * condition's meaning, means a condition added to or changed in `JournalCondition` is decided
 * the same way the server decides it, with no list to keep in step; a test runs every journal
 * condition here and on DynamoDB Local over the same items.
 *
 * The grammar is the part of DynamoDB's that the journal's conditions use: `OR`, `AND`, `NOT`,
 * parentheses, the comparators `=`, `<>`, `<`, `<=`, `>`, `>=`, `attribute_exists(path)` and
 * `attribute_not_exists(path)`, over top-level attribute names, `#name` placeholders and
 * `:value` placeholders. Anything else (other functions, `BETWEEN`, `IN`, nested paths) is not
 * decided here: the result is `undefined` and the caller keeps the error it had.
 */

/** A condition's verdict on an item: true or false, or undefined when the expression uses what this does not decide. */
export type ConditionVerdict = boolean | undefined;

/**
 * Decides `expression` on `item` (undefined: no item) as DynamoDB would, with plain values.
 *
 * @example
 * evaluateCondition('holder = :me', { pk: 'k', holder: 't' }, {}, { ':me': 't' }) // true
 * evaluateCondition('attribute_not_exists(#owner)', undefined, { '#owner': 'claimedBy' }, {}) // true
 */
export function evaluateCondition(
  expression: string,
  item: Readonly<Record<string, unknown>> | undefined,
  names: Readonly<Record<string, string>> = {},
  values: Readonly<Record<string, unknown>> = {},
): ConditionVerdict {
  try {
    const parser = new Parser(tokenize(expression), { item, names, values });
    const verdict = parser.condition();
    parser.expectEnd();
    return verdict;
  } catch (error) {
    if (error instanceof Undecided) return undefined;
    throw error;
  }
}

/** Thrown inside the parser for anything outside the supported grammar. */
class Undecided extends Error {}

type Token = { kind: 'word' | 'name' | 'value' | 'op' | 'open' | 'close' | 'comma'; text: string };

const TOKEN = /\s*(?:(<>|<=|>=|=|<|>)|(\()|(\))|(,)|(#[A-Za-z0-9_]+)|(:[A-Za-z0-9_]+)|([A-Za-z_][A-Za-z0-9_]*))/y;

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    if (/^\s*$/.test(expression.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(expression);
    if (!match || match.index !== at) throw new Undecided(`unsupported text at ${at}`);
    const [, op, open, close, comma, name, value, word] = match;
    if (op) tokens.push({ kind: 'op', text: op });
    else if (open) tokens.push({ kind: 'open', text: open });
    else if (close) tokens.push({ kind: 'close', text: close });
    else if (comma) tokens.push({ kind: 'comma', text: comma });
    else if (name) tokens.push({ kind: 'name', text: name });
    else if (value) tokens.push({ kind: 'value', text: value });
    else tokens.push({ kind: 'word', text: word! });
  }
  return tokens;
}

/** An operand's value: `absent` for an attribute the item does not have. */
type Operand = { readonly absent: true } | { readonly absent: false; readonly value: unknown };
const ABSENT: Operand = { absent: true };

interface Scope {
  readonly item: Readonly<Record<string, unknown>> | undefined;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
}

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'BETWEEN', 'IN']);

/** Recursive descent over DynamoDB's precedence: NOT binds tighter than AND, AND tighter than OR. */
class Parser {
  private position = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly scope: Scope,
  ) {}

  condition(): boolean {
    let verdict = this.conjunction();
    while (this.keyword('OR')) verdict = this.conjunction() || verdict;
    return verdict;
  }

  expectEnd(): void {
    if (this.position !== this.tokens.length) throw new Undecided('unexpected text after the condition');
  }

  private conjunction(): boolean {
    let verdict = this.negation();
    while (this.keyword('AND')) verdict = this.negation() && verdict;
    return verdict;
  }

  private negation(): boolean {
    if (this.keyword('NOT')) return !this.negation();
    return this.primary();
  }

  private primary(): boolean {
    const token = this.peek();
    if (token?.kind === 'open') {
      this.position++;
      const verdict = this.condition();
      this.expect('close');
      return verdict;
    }
    if (token?.kind === 'word' && this.tokens[this.position + 1]?.kind === 'open') return this.function();
    const left = this.operand();
    const op = this.next();
    if (op?.kind !== 'op') throw new Undecided('a comparison needs a comparator');
    return compare(left, op.text, this.operand());
  }

  private function(): boolean {
    const name = this.next()!.text;
    this.expect('open');
    const path = this.path();
    this.expect('close');
    if (name === 'attribute_exists') return this.attribute(path) !== undefined;
    if (name === 'attribute_not_exists') return this.attribute(path) === undefined;
    throw new Undecided(`function ${name}`);
  }

  private operand(): Operand {
    const token = this.peek();
    if (token?.kind === 'value') {
      this.position++;
      if (!(token.text in this.scope.values)) throw new Undecided(`no value for ${token.text}`);
      return { absent: false, value: this.scope.values[token.text] };
    }
    const value = this.attribute(this.path());
    return value === undefined ? ABSENT : { absent: false, value };
  }

  /** A top-level attribute name, given directly or through a `#name` placeholder. */
  private path(): string {
    const token = this.next();
    let path: string | undefined;
    if (token?.kind === 'name') path = this.scope.names[token.text];
    else if (token?.kind === 'word' && !KEYWORDS.has(token.text.toUpperCase())) path = token.text;
    // A nested path (a.b, a[0]) does not tokenize, so it never reaches here.
    if (path === undefined) throw new Undecided('an attribute name was expected');
    return path;
  }

  private attribute(path: string): unknown {
    const item = this.scope.item;
    if (!item || !Object.prototype.hasOwnProperty.call(item, path)) return undefined;
    // DynamoDB has no null-valued attribute besides NULL, which the journal never writes; undefined is no attribute.
    return item[path];
  }

  private keyword(word: string): boolean {
    const token = this.peek();
    if (token?.kind === 'word' && token.text.toUpperCase() === word) {
      this.position++;
      return true;
    }
    return false;
  }

  private expect(kind: Token['kind']): void {
    if (this.next()?.kind !== kind) throw new Undecided(`expected ${kind}`);
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private next(): Token | undefined {
    return this.tokens[this.position++];
  }
}

/**
 * DynamoDB's comparison: an absent operand makes every comparison false except `<>` (an absent
 * attribute is unequal to any value: `#status <> :completed` holds for an item without a
 * status, as DynamoDB Local answers), and a pair of different types likewise. Order
 * (`<`, `>`…) is defined for numbers and strings (strings by UTF-8 bytes, as DynamoDB orders them).
 */
function compare(left: Operand, op: string, right: Operand): boolean {
  if (left.absent || right.absent) return op === '<>';
  const a = scalar(left.value);
  const b = scalar(right.value);
  if (a.type !== b.type) return op === '<>';
  if (op === '=') return a.key === b.key;
  if (op === '<>') return a.key !== b.key;
  if (a.type !== 'N' && a.type !== 'S') throw new Undecided(`order of ${a.type}`);
  const order = a.type === 'N' ? Math.sign(Number(a.key) - Number(b.key)) : byteOrder(a.key, b.key);
  switch (op) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    default:
      throw new Undecided(`comparator ${op}`);
  }
}

/** A value's DynamoDB type and a key that is equal exactly when the values are. */
function scalar(value: unknown): { type: string; key: string } {
  if (typeof value === 'string') return { type: 'S', key: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { type: 'N', key: String(value) };
  if (typeof value === 'boolean') return { type: 'BOOL', key: String(value) };
  if (value === null) return { type: 'NULL', key: 'null' };
  throw new Undecided('a value of a type the journal does not compare');
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
