/**
 * RFC 6902 JSON Patch on a plain JSON value: add, remove and replace, the operations the overlays
 * use (a kustomization with another one is refused before it gets here). Returns a patched copy; a
 * path that does not resolve is an error, as in kustomize.
 */
export type JsonPatchOperation = { op: 'add' | 'replace'; path: string; value: unknown } | { op: 'remove'; path: string };

type Container = Record<string, unknown> | unknown[];

export class JsonPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchError';
  }
}

/** `/a/b~1c/0` → ['a', 'b/c', '0']. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`"${pointer}" is not a JSON pointer (it must start with /)`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export function applyJsonPatch<T>(document: T, operations: readonly JsonPatchOperation[]): T {
  let result: unknown = structuredClone(document);
  for (const operation of operations) result = applyOperation(result, operation);
  return result as T;
}

function applyOperation(document: unknown, operation: JsonPatchOperation): unknown {
  const tokens = parsePointer(operation.path);
  if (tokens.length === 0) {
    if (operation.op === 'remove') throw new JsonPatchError('cannot remove the whole document');
    return structuredClone(operation.value);
  }
  const parent = resolveParent(document, tokens, operation.path);
  const key = tokens[tokens.length - 1] as string;
  if (Array.isArray(parent)) applyToArray(parent, key, operation);
  else applyToObject(parent, key, operation);
  return document;
}

function resolveParent(document: unknown, tokens: string[], path: string): Container {
  let node: unknown = document;
  for (const token of tokens.slice(0, -1)) {
    node = Array.isArray(node)
      ? node[arrayIndex(node, token, path, false)]
      : isObject(node) && Object.hasOwn(node, token)
        ? node[token]
        : undefined;
    if (node === undefined) throw new JsonPatchError(`${path}: "${token}" does not exist`);
  }
  if (!Array.isArray(node) && !isObject(node)) throw new JsonPatchError(`${path}: the parent is neither an object nor an array`);
  return node;
}

function applyToArray(parent: unknown[], token: string, operation: JsonPatchOperation): void {
  if (operation.op === 'add') {
    const index = token === '-' ? parent.length : arrayIndex(parent, token, operation.path, true);
    parent.splice(index, 0, structuredClone(operation.value));
    return;
  }
  const index = arrayIndex(parent, token, operation.path, false);
  if (operation.op === 'remove') parent.splice(index, 1);
  else parent[index] = structuredClone(operation.value);
}

function applyToObject(parent: Record<string, unknown>, key: string, operation: JsonPatchOperation): void {
  if (operation.op === 'add') {
    parent[key] = structuredClone(operation.value);
    return;
  }
  if (!Object.hasOwn(parent, key)) throw new JsonPatchError(`${operation.path}: "${key}" does not exist`);
  if (operation.op === 'remove') delete parent[key];
  else parent[key] = structuredClone(operation.value);
}

/** An array index token; `forInsert` allows the position just past the end. */
function arrayIndex(array: unknown[], token: string, path: string, forInsert: boolean): number {
  const limit = forInsert ? array.length : array.length - 1;
  if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) > limit) {
    throw new JsonPatchError(`${path}: "${token}" is not an index of an array of ${array.length}`);
  }
  return Number(token);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
