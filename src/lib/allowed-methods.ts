// Which methods a gateway path has routes for: a request with another method is 405 with `Allow`
// (RFC 9110 section 15.5.6), not 404, so a client learns it used the wrong method, not a wrong path.

/** A mounted route as hono lists it (`app.routes`): `ALL` for middleware (`app.use`). */
export interface ListedRoute {
  method: string;
  path: string;
}

/**
 * The methods each path has a route for, from hono's route list (middleware left out). HEAD comes
 * with GET (hono answers HEAD from the GET handler).
 *
 * @returns a function from a path to its methods, sorted (empty: no route has that path)
 */
export function allowedMethods(routes: readonly ListedRoute[]): (path: string) => string[] {
  const patterns = new Map<string, { re: RegExp; methods: Set<string> }>();
  for (const r of routes) {
    if (r.method === 'ALL') continue;
    let entry = patterns.get(r.path);
    if (!entry) {
      // hono's syntax: `:name` one segment, `*` anything (here only at the end of a mounted path).
      const source = r.path
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      entry = { re: new RegExp(`^${source}/?$`), methods: new Set() };
      patterns.set(r.path, entry);
    }
    entry.methods.add(r.method);
    if (r.method === 'GET') entry.methods.add('HEAD');
  }
  const all = [...patterns.values()];
  return (path) => {
    const methods = new Set<string>();
    for (const p of all) if (p.re.test(path)) for (const m of p.methods) methods.add(m);
    return [...methods].sort();
  };
}
