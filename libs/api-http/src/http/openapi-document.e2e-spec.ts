import { startFullApi, type FullApi } from '../testing/full-api';

type Schema = { type?: string; minimum?: number; maximum?: number; $ref?: string; properties?: Record<string, Schema>; items?: Schema; allOf?: Schema[] };
type Operation = {
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  security?: Record<string, unknown>[];
};

/**
 * The OpenAPI document is the contract Schemathesis tests the running system against, so it must describe every
 * response (bodies and error statuses) and give every integer input a range. Checked on the document the app
 * serves, with every controller mounted.
 */
describe('the OpenAPI document', () => {
  let api: FullApi;
  let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, op })));
  const resolve = (s: Schema): Schema => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!]! : s);

  beforeAll(async () => {
    api = await startFullApi();
    doc = (await (await fetch(`${api.base}/api/agent/openapi.json`)).json()) as typeof doc;
  });
  afterAll(async () => api?.close());

  it('covers every area', () => {
    const ids = operations().map((o) => o.id);
    expect(ids.length).toBeGreaterThanOrEqual(40);
    for (const id of [
      'GET /api/agent/pools/featured',
      'POST /api/agent/auth/register',
      'POST /api/agent/marketplace/submit-buy',
      'POST /api/agent/webhooks',
      'DELETE /api/agent/auth/keys/{keyId}',
      'GET /api/agent/events',
      'GET /api/agent/events/stream',
    ]) {
      expect(ids).toContain(id);
    }
  });

  it('documents a JSON body schema for every response of every operation, a success among them (the event stream: text/event-stream)', () => {
    const missing: string[] = [];
    const streams: string[] = [];
    for (const { id, op } of operations()) {
      const statuses = Object.keys(op.responses);
      if (!statuses.some((s) => s.startsWith('2'))) missing.push(`${id}: no 2xx`);
      for (const status of statuses) {
        const content = op.responses[status]!.content;
        if (content?.['text/event-stream']?.schema) streams.push(`${id} ${status}`);
        else if (!content?.['application/json']?.schema) missing.push(`${id} ${status}: no schema`);
      }
    }
    expect(missing).toEqual([]);
    expect(streams).toEqual(['GET /api/agent/events/stream 200']);
  });

  it('documents the refusals of the request layer: 429 everywhere, 400 with inputs, 401/403 with a key, 413/415 with a body', () => {
    for (const { id, op } of operations()) {
      const statuses = Object.keys(op.responses);
      expect([id, statuses]).toEqual([id, expect.arrayContaining(['429'])]);
      if (op.parameters?.length || op.requestBody) expect([id, statuses]).toEqual([id, expect.arrayContaining(['400'])]);
      if (op.requestBody) expect([id, statuses]).toEqual([id, expect.arrayContaining(['413', '415'])]);
      if (op.security?.some((s) => 'api-key' in s)) expect([id, statuses]).toEqual([id, expect.arrayContaining(['401', '403'])]);
      expect(statuses.filter((s) => s.startsWith('5') && s !== '503')).toEqual([]);
    }
  });

  it('gives every numeric input a minimum and a maximum', () => {
    const unbounded: string[] = [];
    const visit = (where: string, schema: Schema | undefined) => {
      if (!schema) return;
      const s = resolve(schema);
      if ((s.type === 'integer' || s.type === 'number') && (s.minimum === undefined || s.maximum === undefined)) unbounded.push(where);
      for (const [name, p] of Object.entries(s.properties ?? {})) visit(`${where}.${name}`, p);
      if (s.items) visit(`${where}[]`, s.items);
      for (const part of s.allOf ?? []) visit(where, part);
    };
    for (const { id, op } of operations()) {
      for (const p of op.parameters ?? []) visit(`${id} ${p.in}:${p.name}`, p.schema);
      visit(`${id} body`, op.requestBody?.content['application/json']?.schema);
    }
    expect(unbounded).toEqual([]);
  });
});
