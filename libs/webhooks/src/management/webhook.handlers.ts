import type { WebhookCaller, WebhookOwner } from '../store/webhook-store';
import type { TestSendResult, WebhookService, WebhookView } from './webhook-service';

/**
 * Webhook management as commands (register, update, remove, test, redeliver) and queries (list, deliveries), each
 * scoped to the API key that owns the webhooks (list and remove also reach the wallet's revoked keys' webhooks);
 * the handlers are plain classes over WebhookService.
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

type Webhooks = Pick<WebhookService, 'register' | 'update' | 'remove' | 'sendTest' | 'redeliver' | 'list' | 'deliveries'>;

export class RegisterWebhookHandler {
  constructor(private readonly webhooks: Webhooks) {}
  execute(c: RegisterWebhookCommand): Promise<WebhookView> {
    return this.webhooks.register(c.owner, c.body);
  }
}

export class UpdateWebhookHandler {
  constructor(private readonly webhooks: Webhooks) {}
  execute(c: UpdateWebhookCommand): Promise<WebhookView> {
    return this.webhooks.update(c.ownerKeyId, c.webhookId, c.body);
  }
}

export class RemoveWebhookHandler {
  constructor(private readonly webhooks: Webhooks) {}
  execute(c: RemoveWebhookCommand): Promise<{ id: string; deleted: true }> {
    return this.webhooks.remove(c.caller, c.webhookId);
  }
}

export class SendTestWebhookHandler {
  constructor(private readonly webhooks: Webhooks) {}
  execute(c: SendTestWebhookCommand): Promise<TestSendResult> {
    return this.webhooks.sendTest(c.ownerKeyId, c.webhookId);
  }
}

export class RedeliverWebhookHandler {
  constructor(private readonly webhooks: Webhooks) {}
  execute(c: RedeliverWebhookCommand): ReturnType<WebhookService['redeliver']> {
    return this.webhooks.redeliver(c.ownerKeyId, c.webhookId, c.deliveryId);
  }
}

export class ListWebhooksHandler {
  constructor(private readonly webhooks: Webhooks) {}
  execute(q: ListWebhooksQuery): Promise<WebhookView[]> {
    return this.webhooks.list(q.caller);
  }
}

export class WebhookDeliveriesHandler {
  constructor(private readonly webhooks: Webhooks) {}
  execute(q: WebhookDeliveriesQuery): ReturnType<WebhookService['deliveries']> {
    return this.webhooks.deliveries(q.ownerKeyId, q.webhookId, q.page, q.limit);
  }
}
