import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toApiGatewayV2Event } from '../local/api-gateway-event.js';
import { matchRoute, type Route } from './router.js';

/** Largest request body read, like API Gateway's 10 MB payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Lambda's limit on a synchronous invocation's payload: the event as JSON, not only the body. */
const LAMBDA_PAYLOAD_LIMIT_BYTES = 6 * 1024 * 1024;

/** A running local API. */
export interface ServedRoutes {
  readonly server: Server;
  readonly url: string;
  /** Closes the listener and every open connection. */
  stop(): Promise<void>;
}

/**
 * Serves `routes` on 127.0.0.1 at `port` (0: a port the kernel picks; `url` names the one it got):
 * each HTTP request becomes the API Gateway HTTP API (v2) event API Gateway would send, and the
 * handler's result becomes the HTTP response. A request whose event Lambda would refuse (over its
 * 6 MB payload limit) is answered 413, as API Gateway answers it, without invoking the handler.
 * `routes` may still be on their way (the services behind them starting): requests wait for them.
 */
export async function serveRoutes(
  routes: readonly Route[] | Promise<readonly Route[]>,
  port: number,
  onRequest: (line: string) => void,
): Promise<ServedRoutes> {
  const server = createServer((req, res) => {
    handle(routes, req, res, onRequest).catch((error) => {
      onRequest(`500 ${req.method} ${req.url}: ${(error as Error).message}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Internal Server Error' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: actual } = server.address() as AddressInfo;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { server, url: `http://127.0.0.1:${actual}`, stop };
}

async function handle(
  routes: readonly Route[] | Promise<readonly Route[]>,
  req: IncomingMessage,
  res: ServerResponse,
  onRequest: (line: string) => void,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const method = req.method ?? 'GET';
  const match = matchRoute(await routes, method, url.pathname);
  if (!match) {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Not Found' }));
    onRequest(`404 ${method} ${url.pathname}`);
    return;
  }
  const body = await readBody(req);
  if (body === undefined) {
    tooLarge(res, method, url.pathname, onRequest);
    return;
  }
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]),
  );
  const event = toApiGatewayV2Event({
    method,
    path: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    body: body.length > 0 ? body : undefined,
    routeKey: match.route.routeKey,
    pathParameters: Object.keys(match.pathParameters).length > 0 ? match.pathParameters : undefined,
  });
  if (Buffer.byteLength(JSON.stringify(event)) > LAMBDA_PAYLOAD_LIMIT_BYTES) {
    tooLarge(res, method, url.pathname, onRequest);
    return;
  }
  const result = await match.route.handler(event);
  const responseHeaders: Record<string, string | string[]> = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
  );
  if (result.cookies?.length) responseHeaders['set-cookie'] = result.cookies;
  const status = result.statusCode ?? 200;
  res.writeHead(status, responseHeaders);
  res.end(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''));
  const replayed = result.headers?.['Idempotent-Replayed'] ? ' (replayed)' : '';
  onRequest(`${status} ${method} ${url.pathname}${replayed}`);
}

function tooLarge(res: ServerResponse, method: string, path: string, onRequest: (line: string) => void): void {
  res
    .writeHead(413, { 'content-type': 'application/json' })
    .end(JSON.stringify({ message: 'Request Entity Too Large' }));
  onRequest(`413 ${method} ${path} (request over Lambda's payload limit)`);
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
