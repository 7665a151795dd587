import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { liveness } from '@dob/observability';
import { HealthRegistry, healthHttpStatus, healthJson } from '@dob/runtime';

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
    // Serialized here, not by Fastify: a faulted projection's position is a bigint, and JSON.stringify throws on it
    // (the MongoDB-backed API answered /health 500 under the fault suite).
    await reply.status(healthHttpStatus(report)).header('content-type', 'application/json; charset=utf-8').send(healthJson(report));
  }

  @Get('live')
  live() {
    return liveness();
  }
}
