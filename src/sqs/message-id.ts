import type { SQSRecord } from 'aws-lambda';
import { InvalidOptionsError, KeyMissingError, RequestInvalidError } from '../core/index.js';

/**
 * Reads the message id from a String message attribute, such as the `eventId` the outbox
 * dispatcher sets: two dispatches of one event then count as one message.
 *
 * @throws KeyMissingError when the attribute is absent or empty (the record is reported as failed)
 * @example sqsConsumer(reserveStock, { journal, consumer: 'stock', messageId: fromMessageAttribute('eventId') })
 */
export function fromMessageAttribute(name: string): (record: SQSRecord) => string {
  if (typeof name !== 'string' || name.length === 0)
    throw new InvalidOptionsError('fromMessageAttribute() needs an attribute name');
  return function messageIdFromAttribute(record: SQSRecord): string {
    const value = record.messageAttributes?.[name]?.stringValue;
    if (typeof value !== 'string' || value.length === 0)
      throw new KeyMissingError(`The message has no '${name}' message attribute`);
    return value;
  };
}

/**
 * Reads the message id from a field of the JSON body; a dotted path reaches into nested
 * objects. Numbers are accepted and turned into strings.
 *
 * @throws RequestInvalidError when the body is not JSON; KeyMissingError when the field is
 *   absent, empty or not a string or number (either way the record is reported as failed)
 * @example sqsConsumer(handle, { journal, consumer: 'orders', messageId: fromBodyField('eventId') })
 */
export function fromBodyField(path: string): (record: SQSRecord) => string {
  if (typeof path !== 'string' || path.length === 0)
    throw new InvalidOptionsError('fromBodyField() needs a field path');
  const steps = path.split('.');
  return function messageIdFromBody(record: SQSRecord): string {
    let value: unknown;
    try {
      value = JSON.parse(record.body);
    } catch (error) {
      throw new RequestInvalidError(`The message body is not JSON: ${(error as Error).message}`, { cause: error });
    }
    for (const step of steps)
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value !== 'string' || value.length === 0)
      throw new KeyMissingError(`The message body has no '${path}' string field`);
    return value;
  };
}
