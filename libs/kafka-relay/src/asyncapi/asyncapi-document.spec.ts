import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { RELAYED_EVENT_TYPES } from '../analyst-topics';
import { toAnalystMessage } from '../cloud-event';
import { SAMPLES, recordedSample } from '../testing/sample-events';
import { buildAsyncApiDocument, renderAsyncApiDocument } from './asyncapi-document';

const DOC_FILE = join(__dirname, '../../../../docs/kafka.asyncapi.json');

describe('the AsyncAPI document of the analyst topics', () => {
  const catalog = createChainEventCatalog([...walletEvents]);
  const doc = buildAsyncApiDocument(catalog) as { components: { messages: Record<string, unknown> } };
  // The document is loaded whole, so payload schemas resolve their $refs into components.schemas as any tool would.
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  ajv.addSchema(doc, 'asyncapi.json');
  const payloadOf = (type: string) => ajv.getSchema(`asyncapi.json#/components/messages/${type}/payload`)!;
  const headers = ajv.getSchema('asyncapi.json#/components/schemas/AnalystHeaders')!;

  it('is what `npm run docs:asyncapi` generates from the catalog (the committed file is current)', () => {
    expect(readFileSync(DOC_FILE, 'utf8')).toBe(renderAsyncApiDocument(catalog));
  });

  it('is a valid AsyncAPI 3.0.0 document (the official JSON Schema, @asyncapi/specs)', () => {
    const official = JSON.parse(readFileSync(require.resolve('@asyncapi/specs/schemas/3.0.0-without-$id.json'), 'utf8'));
    const validator = addFormats(new Ajv({ strict: false, allErrors: true, validateSchema: false })).compile(official);
    const valid = validator(doc);
    expect(validator.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('describes every relayed event type with a message', () => {
    expect(Object.keys(doc.components.messages).sort()).toEqual([...RELAYED_EVENT_TYPES].sort());
  });

  it('the samples cover every relayed type and are valid domain payloads', () => {
    expect([...new Set(SAMPLES.map((s) => s.type))].sort()).toEqual([...RELAYED_EVENT_TYPES].sort());
    for (const s of SAMPLES) expect({ type: s.type, error: catalog.validate(s.type, 1, s.data) }).toEqual({ type: s.type, error: null });
  });

  it.each(SAMPLES.map((s, i) => [s.type, s.streamId.split('-')[0], i] as const))(
    '%s (%s stream) as published validates against its JSON Schema in the document',
    (type, _stream, i) => {
      const message = toAnalystMessage(recordedSample(SAMPLES[i]!, i))!;
      const validate = payloadOf(type);
      const value = JSON.parse(message.value);
      expect(validate(value) ? [] : validate.errors).toEqual([]);
      expect(headers(message.headers) ? [] : headers.errors).toEqual([]);
    },
  );

  it('rejects what the relay must never send: money as a number, a wrong type, an unknown attribute', () => {
    const i = SAMPLES.findIndex((s) => s.type === 'ListingSold');
    const ce = JSON.parse(toAnalystMessage(recordedSample(SAMPLES[i]!, i))!.value);
    const validate = payloadOf('ListingSold');
    expect(validate({ ...ce, data: { ...ce.data, total_price: 200000000 } })).toBe(false);
    expect(validate({ ...ce, type: 'io.dobprotocol.ListingCreated.v1' })).toBe(false);
    expect(validate({ ...ce, extra: 1 })).toBe(false);
    expect(validate({ ...ce, data: { ...ce.data, buyer: 'not-a-strkey' } })).toBe(false);
  });
});
