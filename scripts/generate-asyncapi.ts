/**
 * `npm run docs:asyncapi`: writes docs/kafka.asyncapi.json from the domain event catalog (libs/kafka-relay
 * asyncapi-document.ts). Run it after changing an event schema or a topic; asyncapi-document.spec.ts fails while
 * the committed file differs from what this generates.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderAsyncApiDocument } from '@dob/kafka-relay';
import { systemEventCatalog } from '@dob/runtime';

const out = join(__dirname, '..', 'docs', 'kafka.asyncapi.json');
writeFileSync(out, renderAsyncApiDocument(systemEventCatalog()));
console.log(`wrote ${out}`);
