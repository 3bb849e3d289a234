/**
 * A framework's route pattern written as API Gateway writes a route, so an operation keeps its
 * scope when it moves between a Middy handler (`POST /payments/{id}/refunds`, from the route key
 * or resource) and a framework route (`POST /payments/:id/refunds`): a parameter `:id` becomes
 * `{id}` (a constraint written after it, `:id{[0-9]+}` or `:id(\\d+)`, is dropped), a named
 * wildcard `*rest` becomes `{rest+}` and a bare `*` becomes `{proxy+}`. Anything else stays as written.
 *
 * @example routeOperation('post', '/payments/:id/refunds') // 'POST /payments/{id}/refunds'
 */
export function routeOperation(method: string, pattern: string): string {
  const route = pattern
    .replace(/:([A-Za-z0-9_$]+)(?:\{[^}]*\}|\([^)]*\))?/g, '{$1}')
    .replace(/\*([A-Za-z0-9_$]+)/g, '{$1+}')
    .replace(/\*/g, '{proxy+}');
  return `${method.toUpperCase()} ${route}`;
}
