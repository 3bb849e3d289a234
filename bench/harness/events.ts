import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** The Lambda's remaining time every invocation reports (a 30 s function, just started). */
export const REMAINING_TIME_MS = 29_000;

/** A Lambda context as the runtime hands it to a warm container. */
export function lambdaContext(): Context {
  return {
    awsRequestId: randomUUID(),
    getRemainingTimeInMillis: () => REMAINING_TIME_MS,
    functionName: 'create-payment',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:create-payment',
    memoryLimitInMB: '1024',
    logGroupName: '/aws/lambda/create-payment',
    logStreamName: 'bench',
    callbackWaitsForEmptyEventLoop: false,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A realistic payments POST body of about 300 bytes. */
export function paymentBody(key: string, amountMinor = 4_999): string {
  return JSON.stringify({
    amount: amountMinor,
    currency: 'EUR',
    customerId: 'cus_7Q2mXk',
    paymentMethod: { type: 'card', token: 'tok_visa_4242' },
    description: `Order ${key.slice(0, 8)}`,
    metadata: { orderId: `ord_${key.slice(0, 12)}`, channel: 'web' },
  });
}

/** `POST /payments` as an HTTP API (v2) event with an `Idempotency-Key` header and a JWT tenant. */
export function paymentEvent(key: string, body: string = paymentBody(key)): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /payments',
    rawPath: '/payments',
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'idempotency-key': key,
      host: 'api.example.com',
      'user-agent': 'bench',
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method: 'POST', path: '/payments', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: randomUUID(),
      routeKey: 'POST /payments',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
      authorizer: { jwt: { claims: { sub: 'tenant-1' }, scopes: [] } },
    } as APIGatewayProxyEventV2['requestContext'],
    body,
    isBase64Encoded: false,
  };
}

/**
 * A JSON body of about `bytes` bytes: a payments batch whose line items repeat until the size
 * is reached, so parsing and hashing see realistic nesting, strings and numbers.
 */
export function jsonBodyOfSize(bytes: number): string {
  const items: unknown[] = [];
  const head = { batchId: 'bat_01HZX', currency: 'EUR', submittedAt: '2024-05-01T12:00:00Z', items };
  let size = JSON.stringify(head).length;
  for (let i = 0; size < bytes; i++) {
    const item = {
      lineId: `li_${i.toString(36).padStart(6, '0')}`,
      sku: `SKU-${(i * 7919) % 100_000}`,
      quantity: (i % 9) + 1,
      unitAmount: 1_000 + ((i * 31) % 50_000),
      taxRate: 0.19,
      note: 'gift wrap, leave at "front desk"',
      tags: ['priority', i % 2 === 0 ? 'even' : 'odd'],
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return JSON.stringify(head);
}

/** A fresh idempotency key, as a client generates one per logical request. */
export function newKey(): string {
  return randomUUID();
}
