import { createServer, type AddressInfo, type Server } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startDynamoDBLocal, type DynamoDBLocal } from '../../src/testing/index.js';

const listTables = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } })
    .send(new ListTablesCommand({}))
    .then((answer) => answer.TableNames);

describe('startDynamoDBLocal', () => {
  const started: DynamoDBLocal[] = [];
  afterAll(() => Promise.all(started.map((server) => server.stop())));

  it('binds a port the kernel picks and reports it: servers started side by side each answer on their own', async () => {
    started.push(...(await Promise.all([startDynamoDBLocal(), startDynamoDBLocal()])));
    const [first, second] = started;
    expect(first.port).not.toBe(second.port);
    for (const server of started) {
      expect(server.endpoint).toBe(`http://127.0.0.1:${server.port}`);
      expect(await listTables(server.endpoint)).toEqual([]);
    }
  }, 120_000);

  it('fails start-up with the bind error when the port asked for is taken', async () => {
    const blocker = await listening();
    try {
      const { port } = blocker.address() as AddressInfo;
      await expect(startDynamoDBLocal({ port })).rejects.toThrow(`Failed to bind to /127.0.0.1:${port}`);
    } finally {
      blocker.close();
    }
  }, 120_000);
});

function listening(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}
