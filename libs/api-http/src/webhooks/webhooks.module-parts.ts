import type { Provider, Type } from '@nestjs/common';
import {
  ListWebhooksHandler,
  ListWebhooksQuery,
  RedeliverWebhookCommand,
  RedeliverWebhookHandler,
  RegisterWebhookCommand,
  RegisterWebhookHandler,
  RemoveWebhookCommand,
  RemoveWebhookHandler,
  SendTestWebhookCommand,
  SendTestWebhookHandler,
  UpdateWebhookCommand,
  UpdateWebhookHandler,
  WebhookDeliveriesHandler,
  WebhookDeliveriesQuery,
  type WebhookService,
} from '@dob/webhooks';
import { command, query, type MessageBinding } from '../cqrs/message-bindings';
import { WebhooksController } from './webhooks.controller';
import { WalletWebhooksController } from './wallet-webhooks.controller';

/** Controller and bus bindings of webhook management; none when the host gives no webhook service. */
export function webhookApiParts(service?: WebhookService): { controllers: Type[]; providers: Provider[]; bindings: MessageBinding[] } {
  if (!service) return { controllers: [], providers: [], bindings: [] };
  return {
    controllers: [WebhooksController, WalletWebhooksController],
    providers: [],
    bindings: [
      command(RegisterWebhookCommand, new RegisterWebhookHandler(service)),
      command(UpdateWebhookCommand, new UpdateWebhookHandler(service)),
      command(RemoveWebhookCommand, new RemoveWebhookHandler(service)),
      command(SendTestWebhookCommand, new SendTestWebhookHandler(service)),
      command(RedeliverWebhookCommand, new RedeliverWebhookHandler(service)),
      query(ListWebhooksQuery, new ListWebhooksHandler(service)),
      query(WebhookDeliveriesQuery, new WebhookDeliveriesHandler(service)),
    ],
  };
}
