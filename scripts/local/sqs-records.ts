import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

// Lambda's view of SQS messages, built without a queue service: the event source mapping and
// the soak relay translate received messages with it, and tests build records by hand.

/** The Lambda `SQSRecord` of a received message. */
export function toSqsRecord(message: Message, queue: { readonly arn: string }): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId ? { MessageDeduplicationId: attributes.MessageDeduplicationId } : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, toLambdaAttribute(value)]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queue.arn,
    awsRegion: 'us-east-1',
  };
}

function toLambdaAttribute(value: MessageAttributeValue): SQSRecord['messageAttributes'][string] {
  return {
    dataType: value.DataType ?? 'String',
    stringValue: value.StringValue,
    binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
    stringListValues: [],
    binaryListValues: [],
  };
}

/** A hand-made record, for batches the emulator cannot produce in one receive (several messages of one FIFO group). */
export function sqsRecord(
  body: string,
  options: { messageId?: string; groupId?: string; attributes?: Record<string, string> } = {},
): SQSRecord {
  const message: Message = {
    MessageId: options.messageId ?? randomUUID(),
    ReceiptHandle: randomUUID(),
    Body: body,
    Attributes: options.groupId ? { MessageGroupId: options.groupId } : {},
    MessageAttributes: Object.fromEntries(
      Object.entries(options.attributes ?? {}).map(([name, value]) => [
        name,
        { DataType: 'String', StringValue: value },
      ]),
    ),
  };
  return toSqsRecord(message, { arn: 'arn:aws:sqs:us-east-1:000000000000:q' });
}
