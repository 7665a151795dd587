import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { HealthRegistry } from '@dob/runtime';

/** GET /health: 200 once every component is ready (projections caught up), 503 while starting or down. */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(@Inject(HealthRegistry) private readonly health: HealthRegistry) {}

  @Get()
  async get(@Res() reply: FastifyReply): Promise<void> {
    const report = await this.health.report();
    await reply.status(report.status === 'ready' ? 200 : 503).send(report);
  }
}
