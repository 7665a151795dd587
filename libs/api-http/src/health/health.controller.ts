import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { liveness } from '@dob/observability';
import { HealthRegistry, healthHttpStatus } from '@dob/runtime';

/**
 * GET /health is readiness: 200 once every component is ready (projections caught up) — also when one is degraded
 * (e.g. the Kafka relay while its broker is away: the API still serves correct answers) — and 503 while starting or
 * down. GET /health/live is liveness: 200 while the process serves HTTP, touching no storage — a slow or down
 * database makes the instance unready, never "dead" (restarting it would not help).
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(@Inject(HealthRegistry) private readonly health: HealthRegistry) {}

  @Get()
  async get(@Res() reply: FastifyReply): Promise<void> {
    const report = await this.health.report();
    await reply.status(healthHttpStatus(report)).send(report);
  }

  @Get('live')
  live() {
    return liveness();
  }
}
