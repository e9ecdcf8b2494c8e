import { readFileSync } from 'node:fs';

/** One row of the spec's back-office Endpoints table (test/fixtures/back-office-endpoints.md, copied verbatim). */
export type EndpointRow = Readonly<{
  method: string;
  path: string;
  access: string;
  request: string;
  response: string;
  pathParams: string[];
  query: Field[];
  /** Undefined when the row names no body fields (e.g. "body admin tip create"). */
  body?: Field[];
  /** "declared path parameter `code`": a parameter the row declares outside the path template. */
  declared: Field[];
  statuses: number[];
}>;
/** `hasDefault`: the row also gives a default (`permissions string[] default empty`). */
export type Field = Readonly<{ name: string; required: boolean; enum?: string[]; hasDefault?: boolean }>;

/** Splits on the separators at depth 0 of (), {} and []. */
const splitTop = (text: string, separators: string): string[] => {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if ('({['.includes(ch)) depth += 1;
    if (')}]'.includes(ch)) depth -= 1;
    if (depth === 0 && separators.includes(ch)) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts.filter(Boolean);
};

/** `sortBy (AMOUNT, CREATED_AT, ID; required)` → name sortBy, enum [AMOUNT, CREATED_AT, ID], required. */
const fieldOf = (item: string, allRequired: boolean): Field => {
  const name = item.split(/[\s:({]/)[0]!;
  const inner = /\(([^)]*)\)/.exec(item)?.[1] ?? '';
  const [values = ''] = inner.split(';');
  const words = values.split(',').map((v) => v.trim());
  const isEnum = words.length >= 2 && words.every((w) => /^[A-Za-z_]+$/.test(w));
  const required = allRequired || /\brequired\b/.test(item.slice(name.length));
  return { name, required, ...(isEnum ? { enum: words } : {}), ...(/\bdefault\b/.test(item) ? { hasDefault: true } : {}) };
};

const bodyOf = (section: string): Field[] | undefined => {
  const text = section.replace(/^body\s*/, '');
  if (text.startsWith('(all optional)')) return splitTop(text.replace('(all optional)', ''), ',').map((i) => fieldOf(i, false));
  const open = text.indexOf('{');
  if (open !== 0) return undefined;
  let depth = 0;
  let close = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '{') depth += 1;
    if (text[i] === '}') {
      depth -= 1;
      if (depth === 0) {
        close = i;
        break;
      }
    }
  }
  const after = text.slice(close + 1);
  const all = /\b(all|both) required\b/.test(after) || /^\s*required/.test(after);
  const listed =
    /;\s*([\w, ]+?) required/
      .exec(after)?.[1]
      ?.split(',')
      .map((n) => n.trim()) ?? [];
  // `{sortBy, sortOrder, page, take required; where ... optional}`: a trailing "required" covers its whole segment.
  return splitTop(text.slice(1, close), ';').flatMap((segment) => {
    const items = splitTop(segment, ',');
    const segmentRequired = all || (items.length > 1 && / required$/.test(segment) && !items.slice(0, -1).some((i) => /\(/.test(i)));
    return items.map((item) => {
      const field = fieldOf(item, segmentRequired);
      return listed.includes(field.name) ? { ...field, required: true } : field;
    });
  });
};

export const parseEndpointsTable = (file: string): EndpointRow[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => /^\| (GET|POST|PUT|PATCH|DELETE) \|/.test(line))
    .map((line) => {
      const [method, path, access, request, response] = line.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, '').trim()) as [
        string,
        string,
        string,
        string,
        string,
      ];
      // A section runs until the next `path`/`query`/`body` (`...}; username, password required` continues the body).
      const sections = splitTop(request, ';').reduce<string[]>(
        (all, part) =>
          all.length > 0 && !/^(path|query|body|declared) /.test(part) ? [...all.slice(0, -1), `${all.at(-1)}; ${part}`] : [...all, part],
        [],
      );
      const query = sections.filter((s) => s.startsWith('query ')).flatMap((s) => splitTop(s.slice(6), ',').map((i) => fieldOf(i, false)));
      const bodySection = sections.find((s) => s.startsWith('body '));
      const declared = [...request.matchAll(/declared path parameter `(\w+)` \(([^)]*)\)/g)].map((m) => ({
        name: m[1]!,
        required: m[2]!.includes('required'),
        enum:
          /one of ([A-Z_, ]+)/
            .exec(m[2]!)?.[1]
            ?.split(',')
            .map((v) => v.trim()) ?? [],
      }));
      const body = bodySection ? bodyOf(bodySection) : undefined;
      return {
        method: method.toLowerCase(),
        path,
        access,
        request,
        response,
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
        query,
        declared,
        ...(body ? { body } : {}),
        statuses: [...response.matchAll(/\b([2-5]\d\d)\b/g)].map((m) => Number(m[1])),
      };
    });
