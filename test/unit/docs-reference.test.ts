// The reference pages say what the code does: every error code with its status, every event
// configuration field, every Worker variable and secret, every export of the origin SDK; and the
// tables name nothing the code lacks.
import { describe, expect, it } from 'vitest';
import configurationPage from '../../docs/reference/configuration.md?raw';
import errorsPage from '../../docs/reference/errors.md?raw';
import originSdkPage from '../../docs/reference/origin-sdk.md?raw';
import sdkHonoSource from '../../origin-sdk/src/hono.ts?raw';
import sdkIndexSource from '../../origin-sdk/src/index.ts?raw';
import sdkNodeSource from '../../origin-sdk/src/node.ts?raw';
import devVarsExample from '../../.dev.vars.example?raw';
import wranglerToml from '../../wrangler.toml?raw';
import { eventConfigInput } from '../../contracts/event-config';
import { ERROR_TABLE, type ErrorCode } from '../../src/lib/errors';

/** The part of a Markdown page from the heading `## title` up to the next `## ` heading. */
function section(page: string, title: string): string {
  const start = page.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no "## ${title}" section`);
  const next = page.indexOf('\n## ', start + 1);
  return page.slice(start, next < 0 ? undefined : next);
}

/** The first cell of every table row that starts with a code span: `| \`x\` | ... |` -> [x, rest of the row]. */
function tableRows(markdown: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const m of markdown.matchAll(/^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/gm)) {
    rows.set(
      m[1]!,
      m[2]!.split('|').map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The zod definition a schema carries (zod/mini keeps it at `_zod.def`). */
interface SchemaDef {
  type: string;
  getter?: () => Schema;
  innerType?: Schema;
  in?: Schema;
  element?: Schema;
  shape?: Record<string, Schema>;
}
interface Schema {
  _zod: { def: SchemaDef };
}

/**
 * Every field path a schema accepts, as the page writes them: `entry.lanes[].lane`.
 * Wrappers (lazy, default, optional, pipe) are looked through; arrays add `[]` to their items' paths.
 */
function fieldPaths(schema: Schema, prefix = ''): string[] {
  const def = schema._zod.def;
  switch (def.type) {
    case 'lazy':
      return fieldPaths(def.getter!(), prefix);
    case 'default':
    case 'prefault':
    case 'optional':
    case 'nullable':
    case 'readonly':
      return fieldPaths(def.innerType!, prefix);
    case 'pipe':
      return fieldPaths(def.in!, prefix);
    case 'array':
      return fieldPaths(def.element!, `${prefix}[]`);
    case 'object':
      return Object.entries(def.shape!).flatMap(([key, value]) => {
        const path = prefix ? `${prefix}.${key}` : key;
        return [path, ...fieldPaths(value, path)];
      });
    default:
      return [];
  }
}

describe('docs/reference/errors.md', () => {
  const rows = tableRows(errorsPage);

  it('lists every error code of ERROR_TABLE with its HTTP status', () => {
    for (const [code, { status }] of Object.entries(ERROR_TABLE)) {
      expect(rows.get(code)?.[0], `${code} in errors.md`).toBe(String(status));
    }
  });

  it('lists no code that ERROR_TABLE does not have', () => {
    const unknown = [...rows.keys()].filter((code) => !(code in ERROR_TABLE));
    expect(unknown).toEqual([]);
  });

  it('reads its table rows as code, status and text (a malformed page would pass the checks above vacuously)', () => {
    expect(rows.size).toBe(Object.keys(ERROR_TABLE).length);
    expect(rows.get('SEATS_UNAVAILABLE' satisfies ErrorCode)?.[0]).toBe('409');
  });
});

describe('docs/reference/configuration.md', () => {
  const eventRows = tableRows(section(configurationPage, 'Event configuration'));
  const workerRows = tableRows(section(configurationPage, 'Worker variables and secrets'));
  const paths = fieldPaths(eventConfigInput as unknown as Schema);

  it('finds the nested fields of the schema (the walk looks through defaults, arrays and lazy schemas)', () => {
    expect(paths).toContain('releaseRatePerMinute');
    expect(paths).toContain('entry.lanes[].releaseSharePercent');
    expect(paths).toContain('bypass.pathPrefixes');
  });

  it('lists every field of the event configuration schema', () => {
    const missing = paths.filter((path) => !eventRows.has(path));
    expect(missing).toEqual([]);
  });

  it('lists no event field that the schema does not accept', () => {
    const unknown = [...eventRows.keys()].filter((path) => !paths.includes(path));
    expect(unknown).toEqual([]);
  });

  it('lists every variable of wrangler.toml and every secret of .dev.vars.example', () => {
    const vars = /^\[vars\]\n([\s\S]*?)^\[/m.exec(wranglerToml)?.[1] ?? '';
    const varNames = [...vars.matchAll(/^([A-Z][A-Z0-9_]*)\s*=/gm)].map((m) => m[1]!);
    const secretNames = [...devVarsExample.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
    expect(varNames).toContain('ORIGIN_URL');
    expect(secretNames).toContain('ADMISSION_SIGNING_JWK');
    const missing = [...varNames, ...secretNames].filter((name) => !workerRows.has(name));
    expect(missing).toEqual([]);
  });
});

/** The names a module exports: `export { a, type B } from` lists and `export function|class|const|interface|type X`. */
function exportedNames(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const item of m[1]!.split(',')) {
      const name = item.trim().replace(/^type\s+/, '');
      if (name) names.push(name);
    }
  }
  for (const m of source.matchAll(/^export\s+(?:async\s+)?(?:function|class|const|interface|type)\s+(\w+)/gm)) names.push(m[1]!);
  return names;
}

describe('docs/reference/origin-sdk.md', () => {
  it('finds the exports of the three entry points (a changed export syntax would pass the check below vacuously)', () => {
    expect(exportedNames(sdkIndexSource)).toContain('verifyAdmission');
    expect(exportedNames(sdkIndexSource)).toContain('HealthReport');
    expect(exportedNames(sdkHonoSource)).toContain('admissionMiddleware');
    expect(exportedNames(sdkNodeSource)).toContain('withHealth');
  });

  it('names every export of @waiting-room/origin-sdk, its /hono and its /node entry points', () => {
    const names = [sdkIndexSource, sdkHonoSource, sdkNodeSource].flatMap(exportedNames);
    const missing = names.filter((name) => !new RegExp('`' + name + '[`(]').test(originSdkPage));
    expect(missing).toEqual([]);
  });
});
