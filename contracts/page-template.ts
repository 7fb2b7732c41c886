// The organizer's own waiting page (an event's `page.template`): the placeholders it may use, the
// rules a template must keep, and its split into text and placeholders for the renderer
// (src/pages/template-page.ts). Pure: the organizer API checks a template with it before storing
// anything, and the property tests run it in Node.

/**
 * Every placeholder a template may use. What each shows and the element it becomes are in
 * docs/how-to/custom-waiting-page.md (a unit test checks that it lists each one); the words stay
 * out of the Worker's bundle. The live ones (all but eventName, logo, languageSwitch, message,
 * policy, draw) carry the ids of the default page's elements, which the page's script updates.
 */
export const PLACEHOLDERS = [
  'eventName',
  'logo',
  'languageSwitch',
  'message',
  'headline',
  'phaseText',
  'positionLabel',
  'position',
  'ahead',
  'wait',
  'countdown',
  'progress',
  'stock',
  'stockWarning',
  'steps',
  'policy',
  'draw',
  'updated',
] as const;

/** A placeholder's name (`{{position}}` -> `position`). */
export type PlaceholderName = (typeof PLACEHOLDERS)[number];

/** The placeholders whose elements carry no id (nothing the script updates): they may appear more than once... */
const REPEATABLE: ReadonlySet<string> = new Set(['eventName', 'logo', 'message', 'languageSwitch', 'draw']);
/** ...up to this many times each (a header and a footer, say): a template of 32 KiB of `{{languageSwitch}}` would be a 2 MB page. */
export const MAX_REPEATS = 4;

/**
 * The ids of the elements the gateway writes or its script reads (the default page's, the
 * template page's and the draw page's). A template element with one of them would take the
 * place of the gateway's (`getElementById` answers the first): the page's data or its live
 * place could then not be read, and an admitted visitor would never be sent on. A test renders
 * every phase and checks this list holds every id the pages use.
 */
export const RESERVED_IDS: ReadonlySet<string> = new Set([
  'wr-data',
  'wr-draw',
  'headline',
  'sub',
  'steps',
  'bar',
  'progress',
  'updated',
  'ahead',
  'big',
  'bigLabel',
  'countdown',
  'moved',
  'policy',
  'stock',
  'stockWarn',
  'wait',
  'event-name',
  'message',
  'preview',
  'come-back',
  'commitment',
  'entrant',
  'verify',
]);

/** The placeholders every template must have: without them a visitor cannot tell the phase or the place. */
const REQUIRED_PLACEHOLDERS: readonly PlaceholderName[] = ['headline', 'position'];

/**
 * Largest template, UTF-8 bytes. It travels in the room's cursor, which every isolate reads about
 * once a second, and in the event's stored configuration: 32 KiB holds a full design with its
 * style; images come from HTTPS URLs, not inside the template.
 */
export const MAX_TEMPLATE_BYTES = 32 * 1024;

/** The rule a template broke (machine-readable: the `rule` of a PAGE_TEMPLATE_INVALID answer). */
type TemplateRule =
  | 'too-large'
  | 'unclosed-placeholder'
  | 'unknown-placeholder'
  | 'duplicate-placeholder'
  | 'missing-placeholder'
  | 'placeholder-position'
  | 'no-script'
  | 'no-event-handler'
  | 'no-javascript-url'
  | 'forbidden-element'
  | 'not-a-fragment'
  | 'markup-in-text-element'
  | 'unclosed-markup'
  | 'reserved-id'
  | 'not-text';

/**
 * What is wrong with a template and where: `line` and `column` are 1-based; lines end at a line
 * feed, a carriage return or both (as HTML reads them), columns count characters (code points).
 */
export interface TemplateProblem {
  rule: TemplateRule;
  line: number;
  column: number;
  message: string;
}

/** Elements that belong to the document the gateway writes around the template (the template is the body's content). */
const DOCUMENT_ELEMENTS = new Set(['html', 'head', 'body', 'title', 'base', 'meta', 'link']);
/** Elements that are refused, and why: the CSP loads no other document; the others' content is read as text, not as the elements it looks like. */
const FORBIDDEN_ELEMENTS = new Map<string, string>([
  ...['iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'portal'].map(
    (n) => [n, "the page's Content-Security-Policy loads no other documents"] as [string, string],
  ),
  ...['noscript', 'noembed', 'noframes', 'plaintext', 'xmp'].map(
    (n) => [n, 'its content is read as plain text, not as the elements it looks like'] as [string, string],
  ),
  ['template', "its content is inert: left open, it would hide the gateway's script that follows the template"],
  ...['form', 'input', 'button', 'select', 'option', 'optgroup', 'datalist', 'textarea'].map(
    (n) =>
      [
        n,
        'the waiting page takes no input (a visitor only waits; the language switch is links), and an open one changes how the rest of the page is read',
      ] as [string, string],
  ),
]);
/** Elements whose content is text up to their end tag (HTML's raw text elements we allow). */
const RAW_TEXT_ELEMENTS = new Set(['style']);
/** Elements that switch the parser to another markup language until closed: each must be closed in the template. */
const FOREIGN_ELEMENTS = new Set(['svg', 'math']);
/** A tag's start: `<` or `</` and its name, read as far as HTML reads a tag name (sticky: set lastIndex). */
const TAG = /<(\/?)([A-Za-z][^\t\n\f\r />]*)/y;
/** The end of a comment: the first "-->" or "--!>" (global: set lastIndex). */
const COMMENT_END = /--!?>/g;
/** Characters no template needs: controls other than tab, line feed, form feed and carriage return, and lone surrogates. */
// oxlint-disable-next-line no-control-regex -- finding control characters is what it is for
const NOT_TEXT = /[\u0000-\u0008\u000B\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** HTML's white space between attributes (the tokenizer's tab, line feed, form feed, carriage return, space). */
const SPACE = /[\t\n\f\r ]/;

const PLACEHOLDER = /\{\{\s*([A-Za-z]+)\s*\}\}/g;

/** Whether `name` is a placeholder's name. */
function isPlaceholder(name: string): name is PlaceholderName {
  return (PLACEHOLDERS as readonly string[]).includes(name);
}

/** An attribute value with character references of the few characters a `javascript:` URL could hide behind decoded, and spacing removed. */
function urlOf(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(Math.min(parseInt(h, 16), 0x10ffff)))
    .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)))
    .replace(/&colon;/gi, ':')
    .replace(/&(tab|newline);/gi, '')
    .split('')
    .filter((c) => c > ' ' && c !== '\u007f') // browsers skip control characters and spaces in a URL's scheme
    .join('')
    .toLowerCase();
}

/**
 * The first rule `template` breaks, or null when it keeps them all. The template is an HTML body
 * fragment: tags, text, comments; placeholders `{{name}}` (spaces allowed inside the braces) only
 * in text, each known name at most once (but the `REPEATABLE` ones), `REQUIRED_PLACEHOLDERS` present; no `<script>`, no `on*`
 * attribute, no `javascript:`/`vbscript:` URL (the page's CSP would block them anyway), none of
 * the document's own elements (`<html>`, `<head>`, `<body>`, `<meta>`...) nor embedded documents,
 * forms or `<template>`; no RESERVED_IDS id and no `name=`; `<svg>` and `<math>` closed; only
 * text characters; at most MAX_TEMPLATE_BYTES. Nothing the template leaves open can change how
 * the gateway's data and script after it are read. Problems are reported in the template's
 * order, the first one found. Linear in the template's length.
 */
export function templateProblem(template: string): TemplateProblem | null {
  const at = (index: number, rule: TemplateRule, message: string): TemplateProblem => {
    const before = template.slice(0, index).split(/\r\n|\r|\n/);
    return { rule, line: before.length, column: [...before.at(-1)!].length + 1, message };
  };
  const bytes = new TextEncoder().encode(template).byteLength;
  if (bytes > MAX_TEMPLATE_BYTES) {
    // Name where the cap is crossed: the first character whose last byte lies past it.
    let size = 0;
    let i = 0;
    for (const ch of template) {
      size += new TextEncoder().encode(ch).byteLength;
      if (size > MAX_TEMPLATE_BYTES) break;
      i += ch.length;
    }
    return at(i, 'too-large', `the template is ${bytes} bytes; at most ${MAX_TEMPLATE_BYTES} bytes (UTF-8)`);
  }
  const odd = NOT_TEXT.exec(template);
  if (odd)
    return at(
      odd.index,
      'not-text',
      `character U+${odd[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} is not text (a control character or half of a surrogate pair)`,
    );
  const seen = new Map<PlaceholderName, number>();
  let i = 0;
  /** Open <svg> and <math> elements (their content is another markup language until closed), with where each opened. */
  const foreign: { name: string; index: number }[] = [];
  /** A `{{` in text at `i`: a known placeholder closed on the same line, not used before (or MAX_REPEATS times for a REPEATABLE one). */
  const placeholder = (): TemplateProblem | number => {
    const close = template.indexOf('}}', i + 2);
    if (close < 0 || /[\r\n]/.test(template.slice(i, close)))
      return at(i, 'unclosed-placeholder', '"{{" is not closed by "}}" on the same line');
    const inner = template.slice(i + 2, close);
    const name = inner.trim();
    if (!/^[A-Za-z]+$/.test(name) || !isPlaceholder(name))
      return at(i, 'unknown-placeholder', `unknown placeholder {{${inner}}}; known: ${PLACEHOLDERS.join(', ')}`);
    const uses = (seen.get(name) ?? 0) + 1;
    if (uses > 1 && !REPEATABLE.has(name))
      return at(i, 'duplicate-placeholder', `{{${name}}} is used more than once (its element has an id the page's script updates)`);
    if (uses > MAX_REPEATS) return at(i, 'duplicate-placeholder', `{{${name}}} is used more than ${MAX_REPEATS} times`);
    seen.set(name, uses);
    return close + 2;
  };
  /** A placeholder inside markup (a tag, comment or raw text element) from `from` to `to`, if any. */
  const misplaced = (from: number, to: number, where: string): TemplateProblem | null => {
    const j = template.slice(from, to).indexOf('{{');
    return j >= 0 ? at(from + j, 'placeholder-position', `placeholders go in text between tags, not inside ${where}`) : null;
  };
  while (i < template.length) {
    const ch = template[i];
    if (ch === '{' && template[i + 1] === '{') {
      const next = placeholder();
      if (typeof next !== 'number') return next;
      i = next;
      continue;
    }
    if (ch !== '<') {
      i++;
      continue;
    }
    if (template.startsWith('<!--', i)) {
      // A comment ends at the first "-->" or "--!>", even one that overlaps its opening ("<!-->"), as HTML reads it.
      COMMENT_END.lastIndex = i + 2;
      const end = COMMENT_END.exec(template);
      if (!end) return at(i, 'unclosed-markup', 'the comment is not closed by "-->"');
      const problem = misplaced(i, end.index, 'a comment');
      if (problem) return problem;
      i = end.index + end[0].length;
      continue;
    }
    if (template[i + 1] === '!' || template[i + 1] === '?') {
      if (/^<!doctype/i.test(template.slice(i, i + 9)))
        return at(i, 'not-a-fragment', 'the template is the content of the page body: no <!doctype>');
      return at(i, 'unclosed-markup', `"${template.slice(i, i + 2)}" starts no element or comment; write "&lt;" for a "<" in text`);
    }
    TAG.lastIndex = i;
    const tag = TAG.exec(template);
    if (!tag) {
      i++; // a "<" that starts no tag is text, as HTML reads it
      continue;
    }
    const name = tag[2]!.toLowerCase();
    const read = readTag(template, i + tag[0].length);
    if (!read) return at(i, 'unclosed-markup', `the tag <${tag[1]}${name}> is not closed by ">"`);
    if (name === 'script')
      return at(i, 'no-script', "no <script>: the gateway runs its own script only (the page's Content-Security-Policy blocks others)");
    if (DOCUMENT_ELEMENTS.has(name))
      return at(
        i,
        'not-a-fragment',
        `no <${name}>: the template is the content of the page body; the gateway writes the document around it`,
      );
    const forbidden = FORBIDDEN_ELEMENTS.get(name);
    if (forbidden) return at(i, 'forbidden-element', `no <${name}>: ${forbidden}`);
    const problem = misplaced(i, read.end, 'a tag') ?? attributeProblem(read.attributes, at);
    if (problem) return problem;
    if (FOREIGN_ELEMENTS.has(name)) {
      const selfClosing = !tag[1] && template[read.end - 1] === '/';
      if (tag[1]) {
        const open = foreign.findLastIndex((f) => f.name === name);
        if (open >= 0) foreign.splice(open);
      } else if (!selfClosing) foreign.push({ name, index: i });
    }
    const start = i;
    i = read.end + 1;
    if (!tag[1] && RAW_TEXT_ELEMENTS.has(name)) {
      const endTag = new RegExp(`</${name}[\\t\\n\\f\\r />]`, 'gi');
      endTag.lastIndex = i;
      const found = endTag.exec(template);
      if (!found) return at(start, 'unclosed-markup', `<${name}> is not closed by </${name}>`);
      const close = found.index - i;
      const inner = misplaced(i, i + close, `<${name}>`);
      if (inner) return inner;
      // Inside <svg> or <math> the same element's content is markup: refuse what would read as tags there.
      const markup = template.slice(i, i + close).search(/<[A-Za-z!/?]/);
      if (markup >= 0)
        return at(
          i + markup,
          'markup-in-text-element',
          `no markup inside <${name}>: its content is text (in CSS write \\3c for "<", in text &lt;)`,
        );
      i += close;
    }
  }
  const unclosed = foreign[0];
  if (unclosed)
    return at(
      unclosed.index,
      'unclosed-markup',
      `<${unclosed.name}> is not closed by </${unclosed.name}> (what follows the template would be read as ${unclosed.name === 'svg' ? 'SVG' : 'MathML'})`,
    );
  const missing = REQUIRED_PLACEHOLDERS.find((n) => !seen.has(n));
  if (missing) {
    const lines = template.split(/\r\n|\r|\n/);
    return {
      rule: 'missing-placeholder',
      line: lines.length,
      column: [...lines.at(-1)!].length + 1,
      message: `the template needs {{${missing}}}`,
    };
  }
  return null;
}

/** An attribute of a tag: its name as written, its value (undefined without one) and its index in the template. */
type Attribute = [name: string, value: string | undefined, index: number];

/**
 * The attributes of the tag whose name ends at `from` and the index of its `>`, read as HTML's
 * tokenizer reads them (quotes count only around a value); null when the template ends first.
 */
function readTag(template: string, from: number): { end: number; attributes: Attribute[] } | null {
  const attributes: Attribute[] = [];
  let j = from;
  const skip = () => {
    while (j < template.length && SPACE.test(template[j]!)) j++;
  };
  for (;;) {
    while (j < template.length && (SPACE.test(template[j]!) || template[j] === '/')) j++;
    if (j >= template.length) return null;
    if (template[j] === '>') return { end: j, attributes };
    const start = j;
    j++; // a name's first character may be anything, "=" included
    while (j < template.length && !SPACE.test(template[j]!) && !'/>='.includes(template[j]!)) j++;
    const name = template.slice(start, j);
    skip();
    if (template[j] !== '=') {
      attributes.push([name, undefined, start]);
      continue;
    }
    j++;
    skip();
    const quote = template[j];
    if (quote === '"' || quote === "'") {
      const close = template.indexOf(quote, j + 1);
      if (close < 0) return null;
      attributes.push([name, template.slice(j + 1, close), start]);
      j = close + 1;
    } else {
      const valueStart = j;
      while (j < template.length && !SPACE.test(template[j]!) && template[j] !== '>') j++;
      attributes.push([name, template.slice(valueStart, j), start]);
    }
  }
}

/** The first event handler attribute, script URL, reserved id or `name` among a tag's attributes. */
function attributeProblem(
  attributes: readonly Attribute[],
  at: (index: number, rule: TemplateRule, message: string) => TemplateProblem,
): TemplateProblem | null {
  for (const [written, value, index] of attributes) {
    const name = written.toLowerCase();
    if (name.startsWith('on'))
      return at(
        index,
        'no-event-handler',
        `no ${name}=: inline event handlers do not run (the page's Content-Security-Policy blocks them)`,
      );
    // Anywhere in the value, not only at its start: some attributes hold lists of URLs (SVG's values=).
    if (value !== undefined && /(javascript|vbscript):/.test(urlOf(value)))
      return at(index, 'no-javascript-url', `no script URL in ${name}=: the page's Content-Security-Policy blocks it`);
    if (name === 'id' && value !== undefined && RESERVED_IDS.has(value.trim()))
      return at(
        index,
        'reserved-id',
        `id="${value.trim()}" is the gateway's own (its page and script use it); pick another id, or use the placeholder that shows it`,
      );
    if (name === 'name')
      return at(
        index,
        'reserved-id',
        "no name=: an element's name can stand in for the document's own properties, which the page's script reads",
      );
  }
  return null;
}

/**
 * A checked template as text and placeholders in order, for the renderer: even indexes are the
 * template's own text, odd ones placeholder names. Only for a template `templateProblem` accepts
 * (a name it does not know is dropped, never shown).
 */
export function templateParts(template: string): string[] {
  return template.split(PLACEHOLDER);
}
