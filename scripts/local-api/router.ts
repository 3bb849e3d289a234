import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** A handler as the local API calls it: an HTTP API (v2) event in, a structured result out. */
export type RouteHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** One route, in API Gateway's route key syntax, e.g. `POST /payments/{id}/refunds`. */
export interface Route {
  readonly routeKey: string;
  readonly handler: RouteHandler;
}

/** The route that matches a request, with its path parameters. */
export interface RouteMatch {
  readonly route: Route;
  readonly pathParameters: Record<string, string>;
}

/**
 * Matches a method and path against route keys the way an HTTP API does for these simple
 * routes: literal segments must be equal, `{name}` captures one segment.
 */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch | undefined {
  const segments = path.split('/').filter(Boolean);
  for (const route of routes) {
    const [routeMethod, routePath] = route.routeKey.split(' ');
    if (routeMethod !== method) continue;
    const pattern = routePath.split('/').filter(Boolean);
    if (pattern.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      if (part.startsWith('{') && part.endsWith('}')) {
        pathParameters[part.slice(1, -1)] = decodeURIComponent(segments[i]);
        return true;
      }
      return part === segments[i];
    });
    if (matches) return { route, pathParameters };
  }
  return undefined;
}
