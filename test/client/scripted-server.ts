import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the server answers one request: a status with headers and body, or a misbehaviour. */
export type Reply =
  { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string } | 'hang' | 'reset';

/** A loopback HTTP server that answers each request with the next scripted reply. */
export interface ScriptedServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * Starts a server on 127.0.0.1 (a free port) that answers the n-th request with `replies[n]`,
 * repeating the last reply once the script runs out.
 *
 * @example
 * const server = await startScriptedServer([{ status: 503 }, { status: 201 }])
 */
export async function startScriptedServer(replies: readonly Reply[]): Promise<ScriptedServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      answer(replies[Math.min(requests.length, replies.length) - 1]!, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/payments`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(reply: Reply, response: ServerResponse): void {
  if (reply === 'hang') return;
  if (reply === 'reset') {
    response.socket?.destroy();
    return;
  }
  response.writeHead(reply.status, reply.headers);
  response.end(reply.body);
}
