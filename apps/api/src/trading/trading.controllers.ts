import { applyDecorators, Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { envelope } from '../pools/openapi-schemas';
import {
  boughtSchema,
  cancelledSchema,
  contributedSchema,
  listedSchema,
  preparedBuySchema,
  preparedCancelSchema,
  preparedContributeSchema,
  preparedListSchema,
  preparedReclaimSchema,
  reclaimedSchema,
} from './openapi-schemas';
import {
  PrepareBuyCommand,
  PrepareCancelCommand,
  PrepareContributeCommand,
  PrepareListCommand,
  PrepareReclaimCommand,
  SubmitSignedTradeCommand,
  type PrepareResponse,
  type SubmitResult,
} from '@dob/trading';
import { CurrentAgent, RequireScope, type AgentPrincipal } from '../auth';
import { ok } from '../http/envelope';
import { PrepareBuyDto, PrepareCancelDto, PrepareContributeDto, PrepareListDto, PrepareReclaimDto, SubmitDto } from './trading.dto';

const caller = (a: AgentPrincipal) => ({ keyId: a.keyId, wallet: a.wallet });
/** Runs a submit; a replay of an earlier submit of the same envelope says so in `Idempotent-Replayed: true`. */
async function submitted(bus: CommandBus, reply: FastifyReply, c: SubmitSignedTradeCommand) {
  const result = await bus.execute<SubmitSignedTradeCommand, SubmitResult>(c);
  if (result.replayed) void reply.header(REPLAYED_HEADER, 'true');
  return ok(result.data);
}
const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Refusals every prepare can give, beside the request-level ones documented for all operations. */
function Prepare(summary: string, schema: object): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary }),
    ApiOkResponse({ schema: envelope(schema, 'one') }),
    ApiResponse({ status: 400, description: 'VALIDATION_ERROR: the rule that failed (amount, balance, deadline, own listing, network)' }),
    ApiResponse({ status: 404, description: 'NOT_FOUND: no such listing or pool on this network' }),
    ApiResponse({ status: 409, description: 'CONFLICT: the listing is no longer active' }),
    ApiResponse({ status: 503, description: 'NETWORK_UNAVAILABLE: the network RPC did not answer' }),
  );
}

/** Refusals every submit can give. */
function Submit(summary: string, schema: object): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary }),
    ApiOkResponse({
      schema: envelope(schema, 'one'),
      description: 'The trade result. Submitting the same signed envelope again is safe: it answers the first outcome, marked `Idempotent-Replayed: true`',
      headers: {
        [REPLAYED_HEADER]: {
          description: '"true" when this is the stored outcome of an earlier submit of the same envelope',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    }),
    ApiResponse({ status: 400, description: 'VALIDATION_ERROR (not prepared here, altered, wrong signer or network) or TRANSACTION_EXPIRED' }),
    ApiResponse({
      status: 409,
      description: 'CONFLICT: the transaction was submitted with other signed bytes, or its first submit is still in flight after a bounded wait (Retry-After)',
      headers: { 'Retry-After': { description: 'Seconds before retrying (in-flight duplicates)', schema: { type: 'integer' } } },
    }),
    ApiResponse({ status: 422, description: 'TRANSACTION_FAILED: the chain rejected it (result codes in details); a replay answers the same' }),
    ApiResponse({ status: 503, description: 'NETWORK_UNAVAILABLE: the network RPC did not answer' }),
  );
}

/** Marketplace trade (docs/decisions.md#d11): prepare returns an unsigned envelope, submit takes it back signed. */
@ApiTags('marketplace')
@ApiSecurity('api-key')
@RequireScope('trade')
@Controller('marketplace')
export class MarketplaceTradeController {
  constructor(private readonly commands: CommandBus) {}

  @Post('prepare-buy')
  @HttpCode(200)
  @Prepare('Prepare a purchase of listed shares (unsigned XDR)', preparedBuySchema)
  async prepareBuy(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareBuyDto) {
    return ok(await this.commands.execute<PrepareBuyCommand, PrepareResponse>(new PrepareBuyCommand(caller(agent), body)));
  }

  @Post('submit-buy')
  @HttpCode(200)
  @Submit('Submit the signed purchase', boughtSchema)
  async submitBuy(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto, @Res({ passthrough: true }) reply: FastifyReply) {
    return submitted(this.commands, reply, new SubmitSignedTradeCommand('buy', caller(agent), body));
  }

  @Post('prepare-list')
  @HttpCode(200)
  @Prepare('Prepare a listing of shares for sale', preparedListSchema)
  async prepareList(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareListDto) {
    return ok(await this.commands.execute<PrepareListCommand, PrepareResponse>(new PrepareListCommand(caller(agent), body)));
  }

  @Post('submit-list')
  @HttpCode(200)
  @Submit('Submit the signed listing', listedSchema)
  async submitList(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto, @Res({ passthrough: true }) reply: FastifyReply) {
    return submitted(this.commands, reply, new SubmitSignedTradeCommand('list', caller(agent), body));
  }

  @Post('prepare-cancel')
  @HttpCode(200)
  @Prepare('Prepare the cancellation of an own listing', preparedCancelSchema)
  async prepareCancel(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareCancelDto) {
    return ok(await this.commands.execute<PrepareCancelCommand, PrepareResponse>(new PrepareCancelCommand(caller(agent), body)));
  }

  @Post('submit-cancel')
  @HttpCode(200)
  @Submit('Submit the signed cancellation', cancelledSchema)
  async submitCancel(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto, @Res({ passthrough: true }) reply: FastifyReply) {
    return submitted(this.commands, reply, new SubmitSignedTradeCommand('cancel', caller(agent), body));
  }
}

/** Crowdfunding, plus reclaim after a failed campaign (the contract's `refund`, docs/decisions.md#d10). */
@ApiTags('crowdfunding')
@ApiSecurity('api-key')
@RequireScope('trade')
@Controller('crowdfunding')
export class CrowdfundingTradeController {
  constructor(private readonly commands: CommandBus) {}

  @Post('prepare-contribute')
  @HttpCode(200)
  @Prepare('Prepare a contribution to a crowdfunding campaign', preparedContributeSchema)
  async prepareContribute(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareContributeDto) {
    return ok(await this.commands.execute<PrepareContributeCommand, PrepareResponse>(new PrepareContributeCommand(caller(agent), body)));
  }

  @Post('submit-contribute')
  @HttpCode(200)
  @Submit('Submit the signed contribution', contributedSchema)
  async submitContribute(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto, @Res({ passthrough: true }) reply: FastifyReply) {
    return submitted(this.commands, reply, new SubmitSignedTradeCommand('contribute', caller(agent), body));
  }

  @Post('prepare-reclaim')
  @HttpCode(200)
  @Prepare('Prepare the refund of a contribution to a failed campaign', preparedReclaimSchema)
  async prepareReclaim(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareReclaimDto) {
    return ok(await this.commands.execute<PrepareReclaimCommand, PrepareResponse>(new PrepareReclaimCommand(caller(agent), body)));
  }

  @Post('submit-reclaim')
  @HttpCode(200)
  @Submit('Submit the signed refund', reclaimedSchema)
  async submitReclaim(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto, @Res({ passthrough: true }) reply: FastifyReply) {
    return submitted(this.commands, reply, new SubmitSignedTradeCommand('reclaim', caller(agent), body));
  }
}
