import { checksOf, validateAgainstDynamoDBLocal } from '../../scripts/hot-key/validation.js';

const endpoint = process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT as string;

describe("the hot-key simulation's per-call figures against the real guard on DynamoDB Local", () => {
  // Scenario 0 is the guard as it is today. When single-flight or the lease memory lands, the
  // real guard makes fewer calls than scenario 0 predicts and this fails: compare with the
  // scenario that describes the guard then ('2', '3', ...).
  it.each([
    [1, 10],
    [2, 5],
  ])('matches scenario 0 for %i container(s) × %i concurrent callers of one key', async (containers, callers) => {
    const result = await validateAgainstDynamoDBLocal({ endpoint, containers, callersPerContainer: callers });

    const failed = checksOf(result).filter((check) => !check.holds);

    expect(failed).toEqual([]);
    expect(result.real.writeUnits).toBeGreaterThan(0);
  });
});
