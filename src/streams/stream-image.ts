import { NumberValueImpl as NumberValue, unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * A DynamoDB number as `dynamodbStreamConsumer` hands it over, always exactly the number the
 * table holds: a `number` when a JavaScript number is that very value (every integer within
 * `Number.MAX_SAFE_INTEGER`, and a fraction such as `19.99` whose shortest JavaScript form is
 * its digits), a `bigint` for any other integer, and the SDK's `NumberValue` (the digits as
 * DynamoDB wrote them, `toString()`) for any other fraction.
 *
 * @example
 * interface Account {
 *   id: StreamNumber; // 18446744073709551615n
 *   balance: StreamNumber; // NumberValue '12345678901234567890.123', String(balance) gives the digits
 * }
 * export const handler = dynamodbStreamConsumer<Account>(project, { journal, consumer: 'accounts' });
 */
export type StreamNumber = number | bigint | NumberValue;

type StreamImage = Parameters<typeof unmarshall>[0];

/** The decimal a number's text stands for: `sign digits × 10^exponent`, digits without leading or trailing zeros. */
interface Decimal {
  readonly negative: boolean;
  /** `''` for zero. */
  readonly digits: string;
  readonly exponent: number;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/**
 * Past DynamoDB's own range (38 significant digits, magnitudes below 10^126) a text is kept as
 * it is: it cannot come from a table, and spelling out its digits could take any amount of memory.
 */
const MAX_INTEGER_DIGITS = 126;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A DynamoDB Streams image (or key) in attribute-value JSON as plain values, unmarshalled by
 * `@aws-sdk/util-dynamodb` (binary attributes stay the base64 strings Lambda delivers), every
 * number a {@link StreamNumber}: exact, never rounded to the nearest JavaScript number.
 *
 * @example
 * readStreamImage({ id: { N: '18446744073709551615' }, price: { N: '19.99' } })
 * // { id: 18446744073709551615n, price: 19.99 }
 */
export function readStreamImage(image: unknown): Record<string, unknown> {
  // wrapNumbers keeps every number's digits; the SDK's own default would throw on a fraction beyond
  // the safe range and silently round one with more digits than a JavaScript number holds.
  return exactNumbers(unmarshall(image as StreamImage, { wrapNumbers: true })) as Record<string, unknown>;
}

/**
 * Replaces, in place, every `NumberValue` of a freshly unmarshalled value by its {@link StreamNumber}.
 */
function exactNumbers(value: unknown): unknown {
  if (value instanceof NumberValue) return streamNumberOf(value.toString());
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return value;
  if (value instanceof Set) {
    const members = [...value].map(exactNumbers);
    value.clear();
    for (const member of members) value.add(member);
    return value;
  }
  const container = value as Record<string, unknown>;
  for (const key of Object.keys(container)) container[key] = exactNumbers(container[key]);
  return container;
}

/** The {@link StreamNumber} of a DynamoDB number's text. */
function streamNumberOf(text: string): StreamNumber {
  const decimal = decimalOf(text);
  if (decimal === undefined || decimal.digits.length + Math.max(decimal.exponent, 0) > MAX_INTEGER_DIGITS)
    return NumberValue.from(text);
  if (decimal.exponent >= 0) {
    const magnitude = BigInt(`${decimal.digits || '0'}${'0'.repeat(decimal.exponent)}`);
    const integer = decimal.negative ? -magnitude : magnitude;
    return magnitude <= MAX_SAFE ? Number(integer) : integer;
  }
  const number = Number(text);
  const shortest = decimalOf(String(number));
  return shortest !== undefined &&
    shortest.negative === decimal.negative &&
    shortest.digits === decimal.digits &&
    shortest.exponent === decimal.exponent
    ? number
    : NumberValue.from(text);
}

function decimalOf(text: string): Decimal | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = '', exponentText = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  const allDigits = `${whole}${fraction}`.replace(/^0+/, '');
  const digits = allDigits.replace(/0+$/, '');
  if (digits === '') return { negative: false, digits: '', exponent: 0 };
  return {
    negative: sign === '-',
    digits,
    exponent: Number(exponentText) - fraction.length + (allDigits.length - digits.length),
  };
}
