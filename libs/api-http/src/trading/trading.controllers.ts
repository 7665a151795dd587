import { applyDecorators, Body, Controller, HttpCode, Optional, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { envelope } from '../openapi/schema-parts';
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
import { IdempotentRequests, type PrepareResponse, type SubmitResult } from '@dob/trading';
import {
  PrepareBuyCommand,
  PrepareCancelCommand,
  PrepareContributeCommand,
  PrepareListCommand,
  PrepareReclaimCommand,
  SubmitSignedTradeCommand,
} from './trading.handlers';
import { CurrentAgent, RequireScope, type AgentPrincipal } from '../access';
import { ok } from '../http/envelope';
import { PrepareBuyDto, PrepareCancelDto, PrepareContributeDto, PrepareListDto, PrepareReclaimDto, SubmitDto } from './trading.dto';

const caller = (a: AgentPrincipal) => ({ keyId: a.keyId, wallet: a.wallet });
const REPLAYED_HEADER = 'Idempotent-Replayed';
const IDEMPOTENCY_KEY = ApiHeader({
  name: 'Idempotency-Key',
  required: false,
  description:
    'Optional (IETF httpapi Idempotency-Key draft): the same key with the same request answers the first response again (Idempotent-Replayed: true); with another request, 422 IDEMPOTENCY_KEY_REUSED',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
});

/**
 * Runs a prepare or submit under its Idempotency-Key (when sent) and says when the answer is a replay: of the key's
 * first response, or of the first submit of the same signed envelope (submits are idempotent without a key too).
 */
async function answered<T>(
  idempotency: IdempotentRequests | undefined,
  agent: AgentPrincipal,
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => Promise<T>,
): Promise<{ success: true; data: unknown }> {
  const header = request.headers['idempotency-key'];
  const key = Array.isArray(header) ? header.join(',') : header;
  const fingerprint = IdempotentRequests.fingerprint(request.method, request.url.split('?')[0]!, request.body);
  const { data, replayed } =
    idempotency && key !== undefined ? await idempotency.run(agent.keyId, key, fingerprint, run) : { data: await run(), replayed: false };
  const submit = data as Partial<SubmitResult>;
  const isSubmit = typeof submit === 'object' && submit !== null && 'replayed' in submit && 'data' in submit;
  if (replayed || (isSubmit && submit.replayed)) void reply.header(REPLAYED_HEADER, 'true');
  return ok(isSubmit ? submit.data : data);
}

/** Refusals every prepare can give, beside the request-level ones documented for all operations. */
function Prepare(summary: string, schema: object): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary }),
    IDEMPOTENCY_KEY,
    ApiOkResponse({
      schema: envelope(schema, 'one'),
      headers: {
        [REPLAYED_HEADER]: {
          description: '"true" when this answers an earlier request with the same Idempotency-Key',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    }),
    ApiResponse({ status: 400, description: 'VALIDATION_ERROR: the rule that failed (amount, balance, deadline, own listing, network)' }),
    ApiResponse({ status: 404, description: 'NOT_FOUND: no such listing or pool on this network' }),
    ApiResponse({
      status: 409,
      description: 'CONFLICT: the listing is no longer active, or a request with this Idempotency-Key is still running (Retry-After)',
    }),
    ApiResponse({ status: 422, description: 'TRANSACTION_FAILED (simulation failed) or IDEMPOTENCY_KEY_REUSED (the key was used with another request)' }),
    ApiResponse({ status: 503, description: 'NETWORK_UNAVAILABLE: the network RPC did not answer' }),
  );
}

/** Refusals every submit can give. */
function Submit(summary: string, schema: object): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary }),
    IDEMPOTENCY_KEY,
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
    ApiResponse({
      status: 422,
      description: 'TRANSACTION_FAILED: the chain rejected it (result codes in details; a replay answers the same), or IDEMPOTENCY_KEY_REUSED',
    }),
    ApiResponse({ status: 503, description: 'NETWORK_UNAVAILABLE: the network RPC did not answer' }),
  );
}

/** Marketplace trade (docs/decisions.md#d11): prepare returns an unsigned envelope, submit takes it back signed. */
@ApiTags('marketplace')
@ApiSecurity('api-key')
@RequireScope('trade')
@Controller('marketplace')
export class MarketplaceTradeController {
  constructor(
    private readonly commands: CommandBus,
    @Optional() private readonly idempotency?: IdempotentRequests,
  ) {}

  @Post('prepare-buy')
  @HttpCode(200)
  @Prepare('Prepare a purchase of listed shares (unsigned XDR)', preparedBuySchema)
  async prepareBuy(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: PrepareBuyDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<PrepareBuyCommand, PrepareResponse>(new PrepareBuyCommand(caller(agent), body)),
    );
  }

  @Post('submit-buy')
  @HttpCode(200)
  @Submit('Submit the signed purchase', boughtSchema)
  async submitBuy(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: SubmitDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<SubmitSignedTradeCommand, SubmitResult>(new SubmitSignedTradeCommand('buy', caller(agent), body)),
    );
  }

  @Post('prepare-list')
  @HttpCode(200)
  @Prepare('Prepare a listing of shares for sale', preparedListSchema)
  async prepareList(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: PrepareListDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<PrepareListCommand, PrepareResponse>(new PrepareListCommand(caller(agent), body)),
    );
  }

  @Post('submit-list')
  @HttpCode(200)
  @Submit('Submit the signed listing', listedSchema)
  async submitList(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: SubmitDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<SubmitSignedTradeCommand, SubmitResult>(new SubmitSignedTradeCommand('list', caller(agent), body)),
    );
  }

  @Post('prepare-cancel')
  @HttpCode(200)
  @Prepare('Prepare the cancellation of an own listing', preparedCancelSchema)
  async prepareCancel(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: PrepareCancelDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<PrepareCancelCommand, PrepareResponse>(new PrepareCancelCommand(caller(agent), body)),
    );
  }

  @Post('submit-cancel')
  @HttpCode(200)
  @Submit('Submit the signed cancellation', cancelledSchema)
  async submitCancel(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: SubmitDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<SubmitSignedTradeCommand, SubmitResult>(new SubmitSignedTradeCommand('cancel', caller(agent), body)),
    );
  }
}

/** Crowdfunding, plus reclaim after a failed campaign (the contract's `refund`, docs/decisions.md#d10). */
@ApiTags('crowdfunding')
@ApiSecurity('api-key')
@RequireScope('trade')
@Controller('crowdfunding')
export class CrowdfundingTradeController {
  constructor(
    private readonly commands: CommandBus,
    @Optional() private readonly idempotency?: IdempotentRequests,
  ) {}

  @Post('prepare-contribute')
  @HttpCode(200)
  @Prepare('Prepare a contribution to a crowdfunding campaign', preparedContributeSchema)
  async prepareContribute(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: PrepareContributeDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<PrepareContributeCommand, PrepareResponse>(new PrepareContributeCommand(caller(agent), body)),
    );
  }

  @Post('submit-contribute')
  @HttpCode(200)
  @Submit('Submit the signed contribution', contributedSchema)
  async submitContribute(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: SubmitDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<SubmitSignedTradeCommand, SubmitResult>(new SubmitSignedTradeCommand('contribute', caller(agent), body)),
    );
  }

  @Post('prepare-reclaim')
  @HttpCode(200)
  @Prepare('Prepare the refund of a contribution to a failed campaign', preparedReclaimSchema)
  async prepareReclaim(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: PrepareReclaimDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<PrepareReclaimCommand, PrepareResponse>(new PrepareReclaimCommand(caller(agent), body)),
    );
  }

  @Post('submit-reclaim')
  @HttpCode(200)
  @Submit('Submit the signed refund', reclaimedSchema)
  async submitReclaim(
    @CurrentAgent() agent: AgentPrincipal,
    @Body() body: SubmitDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(this.idempotency, agent, request, reply, () =>
      this.commands.execute<SubmitSignedTradeCommand, SubmitResult>(new SubmitSignedTradeCommand('reclaim', caller(agent), body)),
    );
  }
}
