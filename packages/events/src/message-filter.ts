// An endpoint's filter: a small JSON predicate over a message's body, tested when the
// outbox is written, so that a message it refuses is never delivered to that endpoint.
import { z } from 'zod';
import { MESSAGE_TYPES } from './outgoing.js';

const MAX_DEPTH = 6;
const MAX_NODES = 64;
const MAX_ITEMS = 20;
const MAX_VALUES = 100;
const MAX_CHARS = 500;

const Text = z.string().max(MAX_CHARS);
const Scalar = z.union([Text, z.number(), z.boolean(), z.null()]);
const FieldPath = Text.regex(
  /^[\w-]+(\.[\w-]+)*$/,
  'must be a dot-separated path, such as data.article.category',
).meta({ description: "A dot-separated path into the body, among the type's `filterFields`" });

// The forms that test one field: each one a strict object, told apart by its second key.
const LEAF_FORMS = {
  eq: z.strictObject({
    field: FieldPath,
    eq: Scalar.meta({ description: 'Equal, with no conversion; a missing field equals null' }),
  }),
  prefix: z.strictObject({
    field: FieldPath,
    prefix: Text.meta({ description: 'A string value starting with it; other values never do' }),
  }),
  in: z.strictObject({
    field: FieldPath,
    in: z.array(Scalar).min(1).max(MAX_VALUES).meta({ description: 'Equal to any of them' }),
  }),
  exists: z.strictObject({
    field: FieldPath,
    exists: z.boolean().meta({ description: 'true: present and not null; false: the opposite' }),
  }),
};
type Leaf = z.infer<(typeof LEAF_FORMS)[keyof typeof LEAF_FORMS]>;
export type MessageFilter =
  Leaf | { and: MessageFilter[] } | { or: MessageFilter[] } | { not: MessageFilter };

const listOf = <Item extends z.ZodType>(item: Item) => z.array(item).min(1).max(MAX_ITEMS);

// The recursion has no bound of its own: MessageFilterSchema hands it only trees that
// checkTree has passed.
const FilterNodeSchema: z.ZodType<MessageFilter> = z
  .union([
    ...Object.values(LEAF_FORMS),
    z.strictObject({
      get and() {
        return listOf(FilterNodeSchema);
      },
    }),
    z.strictObject({
      get or() {
        return listOf(FilterNodeSchema);
      },
    }),
    z.strictObject({
      get not() {
        return FilterNodeSchema;
      },
    }),
  ])
  .meta({
    id: 'MessageFilter',
    description: `Which messages an endpoint receives: one form an object, { field, eq }, { field, prefix }, { field, in }, { field, exists }, { and: [...] }, { or: [...] } or { not }. A field names a path among the message type's \`filterFields\` (GET /api/event-types); one missing from a message counts as null. At most ${MAX_DEPTH} levels deep and ${MAX_NODES} filters in all.`,
  });

// One node's form, checked without its children: what the walk below parses each node by.
const NODE_FORMS: Record<string, z.ZodType> = {
  ...LEAF_FORMS,
  and: z.strictObject({ and: listOf(z.unknown()) }),
  or: z.strictObject({ or: listOf(z.unknown()) }),
  not: z.strictObject({ not: z.unknown() }),
};
const FORM_KEYS = Object.keys(NODE_FORMS);

interface Pending {
  node: unknown;
  path: PropertyKey[];
  depth: number;
}

/**
 * Checks the tree node by node before the recursive schema parses it: a filter too deep
 * or too large is refused within its first 64 nodes, before any recursion could exhaust
 * the stack, and a malformed node is named at its own path rather than as a failed union.
 */
function checkTree(root: unknown, ctx: z.RefinementCtx): void {
  const report = (path: PropertyKey[], message: string) =>
    ctx.addIssue({ code: 'custom', path, message });
  const pending: Pending[] = [{ node: root, path: [], depth: 1 }];
  for (let nodes = 1, next = pending.pop(); next !== undefined; nodes++, next = pending.pop()) {
    const { node, path, depth } = next;
    if (nodes > MAX_NODES) return report([], `must hold at most ${MAX_NODES} filters in all`);
    if (depth > MAX_DEPTH) return report(path, `nests too deep: at most ${MAX_DEPTH} levels`);
    const forms =
      typeof node === 'object' && node !== null && !Array.isArray(node)
        ? FORM_KEYS.filter((key) => Object.hasOwn(node, key))
        : [];
    const form = forms.length === 1 ? forms[0] : undefined;
    if (form === undefined) {
      const has = forms.length > 1 ? `, not ${forms.join(' and ')}` : '';
      report(path, `must be an object with exactly one of ${FORM_KEYS.join(', ')}${has}`);
      continue;
    }
    const parsed = NODE_FORMS[form]!.safeParse(node);
    for (const issue of parsed.error?.issues ?? []) {
      // Reported key by key, as custom issues: an unknown key alone would not stop the pipe.
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
      for (const key of keys) {
        const at = key === undefined ? issue.path : [...issue.path, key];
        report([...path, ...at], key === undefined ? issue.message : 'is not a known field');
      }
    }
    if (!parsed.success || !(form === 'and' || form === 'or' || form === 'not')) continue;
    const children: unknown = (node as Record<string, unknown>)[form];
    if (form === 'not') pending.push({ node: children, path: [...path, form], depth: depth + 1 });
    else {
      // Last first, so that the stack hands them out in order.
      const items = children as unknown[];
      for (let index = items.length - 1; index >= 0; index--) {
        pending.push({ node: items[index], path: [...path, form, index], depth: depth + 1 });
      }
    }
  }
}

/** A filter as a request sends it: the tree is checked first, then parsed. */
export const MessageFilterSchema = z.preprocess((input, ctx) => {
  checkTree(input, ctx);
  return input;
}, FilterNodeSchema);

const SCALARS = new Set(['string', 'number', 'boolean', 'enum', 'literal', 'template_literal']);
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch']);

/** The scalar leaves under `schema`, reached through objects (and unions) alone. */
function leavesOf(schema: z.core.$ZodType, path: string, into: Set<string>): void {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  if (SCALARS.has(def.type)) into.add(path);
  else if (WRAPPERS.has(def.type) && 'innerType' in def) leavesOf(def.innerType, path, into);
  else if (def.type === 'union') for (const option of def.options) leavesOf(option, path, into);
  else if (def.type === 'object') {
    const prefix = path === '' ? '' : `${path}.`;
    for (const [key, value] of Object.entries(def.shape)) leavesOf(value, prefix + key, into);
  }
}

const fieldsByType = new Map<string, readonly string[]>();

/** The paths a filter may name for messages of `messageType`: their scalar fields, sorted. */
export function filterFieldsOf(messageType: string): readonly string[] {
  let fields = fieldsByType.get(messageType);
  if (fields === undefined) {
    const message = MESSAGE_TYPES.find((known) => known.type === messageType);
    if (message === undefined) throw new Error(`unknown message type ${messageType}`);
    const leaves = new Set<string>();
    leavesOf(message.bodySchema, '', leaves);
    fields = [...leaves].sort();
    fieldsByType.set(messageType, fields);
  }
  return fields;
}

export interface FilterProblem {
  /** Dot-separated, from the filter's root: `and.1.field`. */
  path: string;
  message: string;
}

// Past this many, a list of the fields in a message reads worse than a pointer to them.
const FIELDS_LISTED_MAX = 20;

/**
 * The fields of a parsed filter that no type of `messageTypes` (the ones the endpoint
 * receives) has. A field that one type has and another lacks is allowed: for the other,
 * it is missing.
 */
export function checkFilter(
  filter: MessageFilter,
  messageTypes: readonly string[],
): FilterProblem[] {
  const allowed = new Set(messageTypes.flatMap(filterFieldsOf));
  const types = messageTypes.join(', ');
  const message =
    allowed.size <= FIELDS_LISTED_MAX
      ? `must be one of the filterable fields of ${types}: ${[...allowed].sort().join(', ')}`
      : `must be a filterable field of ${types}: see filterFields in GET /api/event-types`;
  const problems: FilterProblem[] = [];
  const visit = (node: MessageFilter, at: string): void => {
    if ('and' in node) node.and.forEach((item, index) => visit(item, `${at}and.${index}.`));
    else if ('or' in node) node.or.forEach((item, index) => visit(item, `${at}or.${index}.`));
    else if ('not' in node) visit(node.not, `${at}not.`);
    else if (!allowed.has(node.field)) problems.push({ path: `${at}field`, message });
  };
  visit(filter, '');
  return problems;
}

type Test = (body: unknown) => boolean;

/** The value at `path` in `body`, through objects only; undefined when there is none. */
function valueAt(body: unknown, path: readonly string[]): unknown {
  let value = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * The filter as a test of a message's body. It runs for every message of every endpoint
 * with a filter, so the work that does not depend on the body is done here, once.
 */
export function compileFilter(filter: MessageFilter): Test {
  if ('and' in filter) {
    const tests = filter.and.map(compileFilter);
    return (body) => {
      for (const test of tests) if (!test(body)) return false;
      return true;
    };
  }
  if ('or' in filter) {
    const tests = filter.or.map(compileFilter);
    return (body) => {
      for (const test of tests) if (test(body)) return true;
      return false;
    };
  }
  if ('not' in filter) {
    const test = compileFilter(filter.not);
    return (body) => !test(body);
  }
  const path = filter.field.split('.');
  // A missing field and a null one are alike: `eq: null` and `exists: false` hold for both.
  if ('eq' in filter) {
    const expected = filter.eq;
    return (body) => (valueAt(body, path) ?? null) === expected;
  }
  if ('in' in filter) {
    const values = new Set<unknown>(filter.in);
    return (body) => values.has(valueAt(body, path) ?? null);
  }
  if ('prefix' in filter) {
    const prefix = filter.prefix;
    return (body) => {
      const value = valueAt(body, path);
      return typeof value === 'string' && value.startsWith(prefix);
    };
  }
  const exists = filter.exists;
  return (body) => ((valueAt(body, path) ?? null) !== null) === exists;
}
