import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { TradingService } from '@dob/trading';
import { CurrentAgent, RequireScope, type AgentPrincipal } from '../auth';
import { ok } from '../http/envelope';
import { PrepareBuyDto, PrepareCancelDto, PrepareContributeDto, PrepareListDto, PrepareReclaimDto, SubmitDto } from './trading.dto';

export const TRADING = Symbol('TRADING');

const caller = (a: AgentPrincipal) => ({ keyId: a.keyId, wallet: a.wallet });

/** Marketplace trade (spec): prepare returns an unsigned envelope, submit takes it back signed. */
@ApiTags('marketplace')
@ApiSecurity('api-key')
@RequireScope('trade')
@Controller('marketplace')
export class MarketplaceTradeController {
  constructor(@Inject(TRADING) private readonly trading: TradingService) {}

  @Post('prepare-buy') @HttpCode(200)
  async prepareBuy(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareBuyDto) {
    return ok(await this.trading.prepareBuy(caller(agent), body));
  }

  @Post('submit-buy') @HttpCode(200)
  async submitBuy(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto) {
    return ok(await this.trading.submit('buy', caller(agent), body));
  }

  @Post('prepare-list') @HttpCode(200)
  async prepareList(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareListDto) {
    return ok(await this.trading.prepareList(caller(agent), body));
  }

  @Post('submit-list') @HttpCode(200)
  async submitList(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto) {
    return ok(await this.trading.submit('list', caller(agent), body));
  }

  @Post('prepare-cancel') @HttpCode(200)
  async prepareCancel(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareCancelDto) {
    return ok(await this.trading.prepareCancel(caller(agent), body));
  }

  @Post('submit-cancel') @HttpCode(200)
  async submitCancel(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto) {
    return ok(await this.trading.submit('cancel', caller(agent), body));
  }
}

/** Crowdfunding (spec) plus reclaim after a failed campaign (brief: contract `refund`). */
@ApiTags('crowdfunding')
@ApiSecurity('api-key')
@RequireScope('trade')
@Controller('crowdfunding')
export class CrowdfundingTradeController {
  constructor(@Inject(TRADING) private readonly trading: TradingService) {}

  @Post('prepare-contribute') @HttpCode(200)
  async prepareContribute(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareContributeDto) {
    return ok(await this.trading.prepareContribute(caller(agent), body));
  }

  @Post('submit-contribute') @HttpCode(200)
  async submitContribute(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto) {
    return ok(await this.trading.submit('contribute', caller(agent), body));
  }

  @Post('prepare-reclaim') @HttpCode(200)
  async prepareReclaim(@CurrentAgent() agent: AgentPrincipal, @Body() body: PrepareReclaimDto) {
    return ok(await this.trading.prepareReclaim(caller(agent), body));
  }

  @Post('submit-reclaim') @HttpCode(200)
  async submitReclaim(@CurrentAgent() agent: AgentPrincipal, @Body() body: SubmitDto) {
    return ok(await this.trading.submit('reclaim', caller(agent), body));
  }
}
