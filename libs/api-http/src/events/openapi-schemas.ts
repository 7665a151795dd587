import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { WEBHOOK_EVENTS } from '@dob/webhooks';
import { obj, str } from '../openapi/schema-parts';

/** One feed event: the webhook payload of its type (docs/agent-api.md#webhook-payloads), `id` its cursor. */
export const feedEventSchema: SchemaObject = obj({
  id: { type: 'string', example: '1043:88120', description: 'The position in the event store: resume after it with `after` or Last-Event-ID' },
  event: { type: 'string', enum: [...WEBHOOK_EVENTS] },
  timestamp: { ...str, format: 'date-time' },
  data: { type: 'object', additionalProperties: true },
});

export const feedPageSchema: SchemaObject = obj({
  events: { type: 'array', items: feedEventSchema },
  next_cursor: { type: 'string', description: 'The `after` of the next page' },
  has_more: { type: 'boolean' },
});
