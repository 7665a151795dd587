import type { Provider, Type } from '@nestjs/common';
import { WebhookService } from '@dob/webhooks';
import { WebhooksController } from './webhooks.controller';
import { webhooksHandlers } from './webhooks.handlers';
import { WalletWebhooksController } from './wallet-webhooks.controller';

/** Controllers and providers (the command and query handlers among them) of webhook management; none when the host gives no webhook service. */
export function webhookApiParts(service?: WebhookService): { controllers: Type[]; providers: Provider[] } {
  if (!service) return { controllers: [], providers: [] };
  return {
    controllers: [WebhooksController, WalletWebhooksController],
    providers: [{ provide: WebhookService, useValue: service }, ...webhooksHandlers],
  };
}
