import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { envelope } from '../openapi/schema-parts';
import {
  deletedWebhookSchema,
  deliverySchema,
  redeliveredSchema,
  registeredWebhookSchema,
  testSentSchema,
  updatedWebhookSchema,
  webhookListItemSchema,
} from './openapi-schemas';
import { type WebhookOwner, type WebhookService, type WebhookView } from '@dob/webhooks';
import {
  ListWebhooksQuery,
  RedeliverWebhookCommand,
  RegisterWebhookCommand,
  RemoveWebhookCommand,
  SendTestWebhookCommand,
  UpdateWebhookCommand,
  WebhookDeliveriesQuery,
} from './webhooks.handlers';
import { CurrentAgent, RequireScope, type AgentPrincipal } from '../access';
import { ok, page } from '../http/envelope';
import { DeliveriesQueryDto, RegisterWebhookDto, UpdateWebhookDto } from './webhooks.dto';

type Answer<K extends keyof WebhookService> = WebhookService[K] extends (...args: never[]) => Promise<infer R> ? R : never;

const BAD = {
  description: "VALIDATION_ERROR naming the problem: non-HTTPS or non-public url, unknown event, short secret, the key's sixth or the wallet's 21st webhook",
};
const MISSING = { description: "NOT_FOUND: no such webhook on this API key (another key's webhook is reported the same way)" };

/**
 * Webhooks belong to the API key that registered them (spec rule 3): every call is scoped to the caller's keyId —
 * except that a revoked key's webhooks (inactive for good) are listed and deletable by the wallet's other keys.
 */
@ApiTags('Webhooks')
@ApiSecurity('api-key')
@RequireScope('read')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Register a webhook (at most 5 per API key, 20 per wallet)' })
  @ApiCreatedResponse({ schema: envelope(registeredWebhookSchema, 'one') })
  @ApiBadRequestResponse(BAD)
  async register(@CurrentAgent() agent: AgentPrincipal, @Body() body: RegisterWebhookDto) {
    const w = await this.commands.execute<RegisterWebhookCommand, WebhookView>(new RegisterWebhookCommand(callerOf(agent), body));
    return ok({ id: w.id, url: w.url, events: w.events, is_active: w.is_active, created_at: w.created_at });
  }

  @Get()
  @ApiOperation({ summary: "This API key's webhooks, and those of the wallet's revoked keys (inactive, key_revoked: true; delete them)" })
  @ApiOkResponse({ schema: envelope(webhookListItemSchema, 'list') })
  async list(@CurrentAgent() agent: AgentPrincipal) {
    return ok((await this.queries.execute<ListWebhooksQuery, WebhookView[]>(new ListWebhooksQuery(callerOf(agent)))).map(listItem));
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a webhook (partial; events replace; is_active true re-enables and resets failure_count)' })
  @ApiOkResponse({ schema: envelope(updatedWebhookSchema, 'one') })
  @ApiBadRequestResponse(BAD)
  @ApiNotFoundResponse(MISSING)
  async update(@CurrentAgent() agent: AgentPrincipal, @Param('id') id: string, @Body() body: UpdateWebhookDto) {
    const w = await this.commands.execute<UpdateWebhookCommand, WebhookView>(new UpdateWebhookCommand(agent.keyId, id, body));
    return ok({ id: w.id, url: w.url, events: w.events, is_active: w.is_active, updated_at: w.updated_at });
  }

  @Delete(':id')
  @ApiOperation({ summary: "Delete a webhook of this API key, or of one of the wallet's revoked keys" })
  @ApiOkResponse({ schema: envelope(deletedWebhookSchema, 'one') })
  @ApiNotFoundResponse(MISSING)
  async remove(@CurrentAgent() agent: AgentPrincipal, @Param('id') id: string) {
    return ok(await this.commands.execute<RemoveWebhookCommand, Answer<'remove'>>(new RemoveWebhookCommand(callerOf(agent), id)));
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a signed `test` event now and report the outcome' })
  @ApiOkResponse({ schema: envelope(testSentSchema, 'one') })
  @ApiNotFoundResponse(MISSING)
  async test(@CurrentAgent() agent: AgentPrincipal, @Param('id') id: string) {
    return ok(await this.commands.execute<SendTestWebhookCommand, Answer<'sendTest'>>(new SendTestWebhookCommand(agent.keyId, id)));
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'Delivery log: status and every attempt (time, response code, duration, error), newest first' })
  @ApiOkResponse({ schema: envelope(deliverySchema, 'page') })
  @ApiNotFoundResponse(MISSING)
  async deliveries(@CurrentAgent() agent: AgentPrincipal, @Param('id') id: string, @Query() query: DeliveriesQueryDto) {
    const p = query.page ?? 1;
    const limit = query.limit ?? 20;
    const r = await this.queries.execute<WebhookDeliveriesQuery, Answer<'deliveries'>>(new WebhookDeliveriesQuery(agent.keyId, id, p, limit));
    return page(r.deliveries, { page: p, limit, total: r.total });
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Queue one delivery again now (same delivery id; a fresh retry cycle)' })
  @ApiResponse({ status: 202, schema: envelope(redeliveredSchema, 'one'), description: 'Queued' })
  @ApiResponse({ status: 409, description: 'CONFLICT: the webhook is inactive (re-enable it first)' })
  @ApiNotFoundResponse(MISSING)
  async redeliver(@CurrentAgent() agent: AgentPrincipal, @Param('id') id: string, @Param('deliveryId') deliveryId: string) {
    return ok(await this.commands.execute<RedeliverWebhookCommand, Answer<'redeliver'>>(new RedeliverWebhookCommand(agent.keyId, id, deliveryId)));
  }
}

const callerOf = (agent: AgentPrincipal): WebhookOwner => ({ keyId: agent.keyId, wallet: agent.wallet });

export function listItem(w: WebhookView) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    is_active: w.is_active,
    failure_count: w.failure_count,
    last_triggered_at: w.last_triggered_at,
    created_at: w.created_at,
    key_revoked: w.key_revoked,
  };
}
