import { routeOperation } from '../../../src/http/route-pattern.js';

describe('a framework route pattern as an operation, written as API Gateway writes routes', () => {
  it.each([
    ['/payments/:id/refunds', 'POST /payments/{id}/refunds'],
    ['/payments/:id{[0-9]+}', 'POST /payments/{id}'],
    ['/payments/:id(^\\d+)/refunds', 'POST /payments/{id}/refunds'],
    ['/files/*path', 'POST /files/{path+}'],
    ['/files/*', 'POST /files/{proxy+}'],
    ['/payments', 'POST /payments'],
  ])('writes %s as %s', (pattern, operation) => {
    expect(routeOperation('post', pattern)).toBe(operation);
  });
});
