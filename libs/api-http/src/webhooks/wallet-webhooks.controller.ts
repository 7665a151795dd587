import { Controller, Delete, Get, Param, Req, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type WebhookView } from '@dob/webhooks';
import { ListWebhooksQuery, RemoveWebhookCommand } from './webhooks.handlers';
import { envelope } from '../openapi/schema-parts';
import { ok } from '../http/envelope';
import { WalletJwtGuard, type WalletSession } from '../access/wallet-jwt';
import { deletedWebhookSchema, webhookListItemSchema } from './openapi-schemas';
import { listItem } from './webhooks.controller';

/**
 * The wallet's webhooks for its owner (a Bearer JWT, like key management): every key's, revoked keys' included, so
 * the owner can clean up after a key it no longer holds (issue 29). Listing and deleting only: changing a webhook
 * stays with the key that registered it.
 */
@ApiTags('Webhooks')
@ApiBearerAuth('jwt')
@UseGuards(WalletJwtGuard)
@Controller('auth/keys/webhooks')
export class WalletWebhooksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get()
  @ApiOperation({ summary: "Every webhook of the JWT's wallet, over all its keys (revoked keys' too: key_revoked true)" })
  @ApiOkResponse({ schema: envelope(webhookListItemSchema, 'list') })
  async list(@Req() req: { user: WalletSession }) {
    return ok((await this.queries.execute<ListWebhooksQuery, WebhookView[]>(new ListWebhooksQuery({ keyId: null, wallet: req.user.wallet }))).map(listItem));
  }

  @Delete(':id')
  @ApiOperation({ summary: "Delete a webhook of any of the JWT's wallet's keys" })
  @ApiOkResponse({ schema: envelope(deletedWebhookSchema, 'one') })
  @ApiNotFoundResponse({ description: 'NOT_FOUND: no such webhook on this wallet' })
  async remove(@Req() req: { user: WalletSession }, @Param('id') id: string) {
    return ok(
      await this.commands.execute<RemoveWebhookCommand, { id: string; deleted: true }>(new RemoveWebhookCommand({ keyId: null, wallet: req.user.wallet }, id)),
    );
  }
}
