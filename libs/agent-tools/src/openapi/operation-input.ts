import type { OpenApiDocument } from '@dobprotocol/agent-client';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';
export type JsonSchema = Record<string, unknown>;

/** A tool's arguments, split back into the request the operation expects. */
export interface OperationRequest {
  readonly path: Record<string, unknown>;
  readonly query: Record<string, unknown>;
  readonly body?: Record<string, unknown>;
}

export interface OperationInput {
  readonly method: HttpMethod;
  readonly path: string;
  readonly summary?: string;
  /** One flat JSON Schema object: path and query parameters and the JSON body's properties. */
  readonly inputSchema: JsonSchema & { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
  split(args: Record<string, unknown>): OperationRequest;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

/** Replaces `$ref: '#/components/schemas/X'` by the schema it names (request DTOs are plain, but nest in general). */
function deref(doc: OpenApiDocument, schema: unknown, seen: string[] = []): JsonSchema {
  if (!schema || typeof schema !== 'object') return schema as JsonSchema;
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s, seen)) as unknown as JsonSchema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    if (seen.includes(name)) throw new Error(`recursive schema ${name}`);
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved ${ref}`);
    return deref(doc, target, [...seen, name]);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, deref(doc, v, seen)]));
}

/**
 * Derives a tool's input schema from one operation of the API's OpenAPI document — the same document the typed
 * client is generated from, itself built from the API's DTOs — so the tool takes exactly what the route validates.
 * `defaults` are filled in when the caller leaves them out (e.g. network_id) and so are not required of it.
 * Throws at startup when the operation is missing: a renamed route fails loudly, never as a broken tool.
 */
export function operationInput(doc: OpenApiDocument, method: HttpMethod, path: string, defaults: Record<string, unknown> = {}): OperationInput {
  const op = doc.paths[path]?.[method] as
    { summary?: string; parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: unknown }> } } | undefined;
  if (!op) throw new Error(`the OpenAPI document has no ${method.toUpperCase()} ${path}`);
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  const where = new Map<string, 'path' | 'query' | 'body'>();
  const add = (name: string, at: 'path' | 'query' | 'body', schema: JsonSchema, isRequired: boolean) => {
    if (where.has(name)) throw new Error(`${method.toUpperCase()} ${path}: ${name} is both a ${where.get(name)} and a ${at} field`);
    where.set(name, at);
    const dflt = defaults[name];
    properties[name] =
      dflt === undefined
        ? schema
        : { ...schema, description: `${schema.description ? `${String(schema.description)}. ` : ''}Default: ${JSON.stringify(dflt)}` };
    if (isRequired && dflt === undefined) required.add(name);
  };
  for (const p of op.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    add(p.name, p.in, { ...deref(doc, p.schema ?? {}), ...(p.description ? { description: p.description } : {}) }, p.in === 'path' || !!p.required);
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  const bodySchema = body ? deref(doc, body) : undefined;
  const bodyRequired = new Set((bodySchema?.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries((bodySchema?.properties as Record<string, JsonSchema> | undefined) ?? {}))
    add(name, 'body', schema, bodyRequired.has(name));

  return {
    method,
    path,
    summary: op.summary,
    inputSchema: { type: 'object', properties, ...(required.size ? { required: [...required] } : {}), additionalProperties: false },
    split(args) {
      const request = {
        path: {} as Record<string, unknown>,
        query: {} as Record<string, unknown>,
        body: bodySchema ? ({} as Record<string, unknown>) : undefined,
      };
      const values = { ...Object.fromEntries(Object.entries(defaults).filter(([k]) => where.has(k))), ...args };
      for (const [name, value] of Object.entries(values)) {
        const at = where.get(name);
        if (!at) throw new Error(`unknown argument "${name}"; this tool takes ${[...where.keys()].join(', ') || 'no arguments'}`);
        if (value === undefined) continue;
        if (at === 'body') request.body![name] = value;
        else request[at][name] = value;
      }
      const missing = [...required].filter((name) => values[name] === undefined);
      if (missing.length) throw new Error(`missing required argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
      return request;
    },
  };
}
