import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { WEBHOOK_EVENTS } from '@dob/webhooks';
import { bool, int, nstr, obj, str, time } from '../openapi/schema-parts';

/** Response shapes of webhook management (spec: Webhooks; the secret never appears). */
const events: SchemaObject = { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENTS] } };
const at = { type: 'string', format: 'date-time' } as const;

export const registeredWebhookSchema = obj({ id: str, url: str, events, is_active: bool, created_at: at });
export const webhookListItemSchema = obj({
  id: str,
  url: str,
  events,
  is_active: bool,
  failure_count: int,
  last_triggered_at: time,
  created_at: at,
  key_revoked: bool,
});
export const updatedWebhookSchema = obj({ id: str, url: str, events, is_active: bool, updated_at: at });
export const deletedWebhookSchema = obj({ id: str, deleted: { type: 'boolean', enum: [true] } });
export const testSentSchema = obj({
  webhook_id: str,
  test_event_sent: bool,
  delivery_status: { type: 'string', enum: ['success', 'failed'] },
  response_code: int,
  response_time_ms: int,
});
export const deliverySchema = obj({
  delivery_id: str,
  event: str,
  event_id: str,
  status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
  attempt_count: int,
  attempts: { type: 'array', items: obj({ attempt: int, attempted_at: at, response_code: { ...int, nullable: true }, duration_ms: int, error: nstr }) },
  next_attempt_at: time,
  created_at: at,
  delivered_at: time,
});
export const redeliveredSchema = obj({ delivery_id: str, webhook_id: str, status: { type: 'string', enum: ['pending'] } });
