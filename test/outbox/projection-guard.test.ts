import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { InvalidOptionsError } from '../../src/core/index.js';
import { ProjectionGuard } from '../../src/outbox/index.js';
import { createTable, localClient } from '../support/dynamodb.js';

async function orderView() {
  const client = localClient();
  const tableName = await createTable(client, 'order-view', 'orderId');
  const guard = new ProjectionGuard({ tableName, client });
  const read = async () =>
    unmarshall((await client.send(new GetItemCommand({ TableName: tableName, Key: { orderId: { S: 'o-1' } } }))).Item!);
  return { guard, read };
}

const key = { orderId: 'o-1' };

describe('ProjectionGuard', () => {
  it('applies the first version of an item', async () => {
    const { guard, read } = await orderView();

    const applied = await guard.applyIfNewer(key, 14, { status: 'paid' });

    expect(applied).toBe(true);
    expect(await read()).toEqual({ orderId: 'o-1', version: 14, status: 'paid' });
  });

  it('ignores version 14 delivered again after version 14', async () => {
    const { guard, read } = await orderView();
    await guard.applyIfNewer(key, 14, { status: 'paid' });

    const applied = await guard.applyIfNewer(key, 14, { status: 'paid-again' });

    expect(applied).toBe(false);
    expect(await read()).toEqual({ orderId: 'o-1', version: 14, status: 'paid' });
  });

  it('ignores version 14 arriving after version 15', async () => {
    const { guard, read } = await orderView();
    await guard.applyIfNewer(key, 14, { status: 'paid' });
    await guard.applyIfNewer(key, 15, { status: 'shipped' });

    const applied = await guard.applyIfNewer(key, 14, { status: 'paid' });

    expect(applied).toBe(false);
    expect(await read()).toEqual({ orderId: 'o-1', version: 15, status: 'shipped' });
  });

  it('removes attributes whose new value is undefined', async () => {
    const { guard, read } = await orderView();
    await guard.applyIfNewer(key, 1, { status: 'paid', hold: 'fraud-check' });

    await guard.applyIfNewer(key, 2, { status: 'cleared', hold: undefined });

    expect(await read()).toEqual({ orderId: 'o-1', version: 2, status: 'cleared' });
  });

  it('refuses a change to the key or the version attribute', async () => {
    const { guard } = await orderView();
    await expect(guard.applyIfNewer(key, 1, { orderId: 'o-2' })).rejects.toThrow("cannot change 'orderId'");
    await expect(guard.applyIfNewer(key, 1, { version: 9 })).rejects.toThrow("cannot change 'version'");
  });

  it.each([
    [{ tableName: 't', versionAttibute: 'v' }, "unknown option 'versionAttibute'"],
    [{ tableName: '' }, "'tableName' must be a table name of at least 3 characters"],
    [{ tableName: 't' }, "'tableName' must be a table name of at least 3 characters"],
    [{ tableName: 'orders', client: {} }, "'client' must be"],
  ])('rejects invalid options %j', (options, message) => {
    expect(() => new ProjectionGuard(options as never)).toThrow(InvalidOptionsError);
    expect(() => new ProjectionGuard(options as never)).toThrow(message);
  });
});
