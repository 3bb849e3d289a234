import type { DynamoDBRecord } from 'aws-lambda';
import { RequestInvalidError } from '../../../src/core/index.js';
import { DispatchedMarker } from '../../../src/journal/index.js';

describe('DispatchedMarker', () => {
  it('refuses a stream record that names no table with a RequestInvalidError, before any write', async () => {
    const sent: unknown[] = [];
    const client = { send: async (command: unknown) => void sent.push(command) };
    const marker = new DispatchedMarker(client as never);
    const record = { eventName: 'INSERT', dynamodb: { SequenceNumber: '7', NewImage: {} } } as DynamoDBRecord;
    await expect(marker.mark([record])).rejects.toThrow(RequestInvalidError);
    await expect(marker.mark([record])).rejects.toThrow(/Stream record 7 names no table or image/);
    expect(sent).toEqual([]);
  });
});
