import { WebhookService } from '@dob/webhooks';
import { commandHandler, queryHandler } from '../cqrs/message-handler';
import type { WebhookCaller, WebhookOwner } from '@dob/webhooks';

/**
 * Webhook management as commands (register, update, remove, test, redeliver) and queries (list, deliveries), each
 * scoped to the API key that owns the webhooks (list and remove also reach the wallet's revoked keys' webhooks);
 * handled below by calling libs/webhooks' WebhookService.
 */
export class RegisterWebhookCommand {
  constructor(
    readonly owner: WebhookOwner,
    readonly body: unknown,
  ) {}
}

export class UpdateWebhookCommand {
  constructor(
    readonly ownerKeyId: string,
    readonly webhookId: string,
    readonly body: unknown,
  ) {}
}

export class RemoveWebhookCommand {
  constructor(
    readonly caller: WebhookCaller,
    readonly webhookId: string,
  ) {}
}

export class SendTestWebhookCommand {
  constructor(
    readonly ownerKeyId: string,
    readonly webhookId: string,
  ) {}
}

export class RedeliverWebhookCommand {
  constructor(
    readonly ownerKeyId: string,
    readonly webhookId: string,
    readonly deliveryId: string,
  ) {}
}

export class ListWebhooksQuery {
  constructor(readonly caller: WebhookCaller) {}
}

export class WebhookDeliveriesQuery {
  constructor(
    readonly ownerKeyId: string,
    readonly webhookId: string,
    readonly page: number,
    readonly limit: number,
  ) {}
}

/** Each webhook management message and the WebhookService call that answers it (the service the host composed). */
export const webhooksHandlers = [
  commandHandler(RegisterWebhookCommand, WebhookService, (w: WebhookService, c) => w.register(c.owner, c.body)),
  commandHandler(UpdateWebhookCommand, WebhookService, (w: WebhookService, c) => w.update(c.ownerKeyId, c.webhookId, c.body)),
  commandHandler(RemoveWebhookCommand, WebhookService, (w: WebhookService, c) => w.remove(c.caller, c.webhookId)),
  commandHandler(SendTestWebhookCommand, WebhookService, (w: WebhookService, c) => w.sendTest(c.ownerKeyId, c.webhookId)),
  commandHandler(RedeliverWebhookCommand, WebhookService, (w: WebhookService, c) => w.redeliver(c.ownerKeyId, c.webhookId, c.deliveryId)),
  queryHandler(ListWebhooksQuery, WebhookService, (w: WebhookService, q) => w.list(q.caller)),
  queryHandler(WebhookDeliveriesQuery, WebhookService, (w: WebhookService, q) => w.deliveries(q.ownerKeyId, q.webhookId, q.page, q.limit)),
];
