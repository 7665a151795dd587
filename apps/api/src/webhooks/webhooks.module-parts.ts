import type { Provider, Type } from '@nestjs/common';
import type { WebhookService } from '@dob/webhooks';
import { WEBHOOK_SERVICE, WebhooksController } from './webhooks.controller';

/** Controller + provider of webhook management; none when the host gives no webhook service. */
export function webhookApiParts(service?: WebhookService): { controllers: Type[]; providers: Provider[] } {
  if (!service) return { controllers: [], providers: [] };
  return { controllers: [WebhooksController], providers: [{ provide: WEBHOOK_SERVICE, useValue: service }] };
}
