import { Controller, Get, Headers, Inject, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EventFeed, type FeedPage } from '@dob/webhooks';
import { ReadEventFeedQuery } from './events.handlers';
import { CurrentAgent, RequireScope, type AgentPrincipal } from '../access';
import { errorEnvelopeSchema } from '../http/openapi-errors';
import { envelope } from '../openapi/schema-parts';
import { ok } from '../http/envelope';
import { EventFilterQueryDto, EventPageQueryDto } from './events.dto';
import { feedEventSchema, feedPageSchema } from './openapi-schemas';
import { OpenStreams, SSE_HEADERS, streamFeed, type StreamSettings } from './sse-stream';

export const STREAM_SETTINGS = Symbol('STREAM_SETTINGS');

const GONE = { status: 410, description: 'CURSOR_EXPIRED: the cursor is older than the feed keeps; details.oldest_cursor says where to resume' };
const BAD_CURSOR = { status: 400, description: 'VALIDATION_ERROR: unknown event type, malformed cursor, or a cursor ahead of every recorded event' };

/**
 * The agents' event feed (docs/agents.md#event-feed): the webhook events without a public URL, as pages or as a
 * Server-Sent Events stream, resumable from any API instance by the event's id (its event-store position).
 */
@ApiTags('Events')
@ApiSecurity('api-key')
@RequireScope('read')
@Controller('events')
export class EventsController {
  private readonly streams: OpenStreams;

  constructor(
    private readonly queries: QueryBus,
    private readonly feed: EventFeed,
    @Inject(STREAM_SETTINGS) private readonly settings: StreamSettings,
  ) {
    this.streams = new OpenStreams(settings.maxStreamsPerKey);
  }

  @Get()
  @ApiOperation({ summary: 'Events after a cursor, oldest first (the same feed as the stream, as pages)' })
  @ApiOkResponse({ schema: envelope(feedPageSchema, 'one') })
  @ApiResponse(BAD_CURSOR)
  @ApiResponse(GONE)
  async page(@CurrentAgent() agent: AgentPrincipal, @Query() q: EventPageQueryDto) {
    const page = await this.queries.execute<ReadEventFeedQuery, FeedPage>(new ReadEventFeedQuery(agent.wallet, { ...q, mine: q.mine === 'true' }));
    return ok(page);
  }

  @Get('stream')
  @ApiOperation({
    summary: 'Follow the feed live (Server-Sent Events): `id` = cursor, `event` = type, `data` = the event as JSON',
    description:
      'Reconnect with Last-Event-ID (or `after`) to resume with no gap and no duplicate, on any API instance. Comment lines are heartbeats; a client that stops reading is sent `event: error` (SLOW_CONSUMER) and closed.',
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The id of the last event received (wins over `after`)' })
  @ApiOkResponse({
    description: 'An endless text/event-stream',
    content: {
      'text/event-stream': { schema: { type: 'string', description: `Frames whose data is ${JSON.stringify(Object.keys(feedEventSchema.properties ?? {}))}` } },
    },
  })
  @ApiResponse({ ...BAD_CURSOR, content: { 'application/json': { schema: errorEnvelopeSchema } } })
  @ApiResponse({ ...GONE, content: { 'application/json': { schema: errorEnvelopeSchema } } })
  @ApiResponse({
    status: 429,
    description: 'RATE_LIMIT_EXCEEDED: over the rate limit, or too many open streams for this API key (Retry-After)',
    content: { 'application/json': { schema: errorEnvelopeSchema } },
  })
  async stream(
    @CurrentAgent() agent: AgentPrincipal,
    @Query() q: EventFilterQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // Everything that can be refused is checked before the stream starts, so refusals are the usual 4xx envelope.
    const filter = EventFeed.filter({ ...q, mine: q.mine === 'true' }, agent.wallet);
    const resumeFrom = lastEventId || q.after;
    const start = resumeFrom ? await this.feed.cursor(resumeFrom) : await this.feed.now();
    const release = this.streams.acquire(agent.keyId);
    const raw = reply.raw;
    const abort = new AbortController();
    reply.hijack();
    // The slot is held until the socket is gone, not only until streamFeed returns: a stream cut as SLOW_CONSUMER
    // keeps its socket (and the buffers in it) until they are flushed or destroyed, and counts against the key until then.
    raw.once('close', () => {
      abort.abort();
      release();
    });
    // A client that left while the cursor was looked up closed before the listener existed: 'close' will not come
    // again, and the stream would run (and hold the slot) until a matching event happened to be written.
    if (raw.destroyed) {
      release();
      return;
    }
    // A socket that makes no progress for a heartbeat and the slow-consumer time (25 s by default) is destroyed: a
    // client that stopped reading while only heartbeats flowed, or one cut as SLOW_CONSUMER that never reads its
    // `event: error` (raw.end() alone kept that socket and its buffers open for good). Heartbeats are progress on a
    // live connection, so an idle, healthy stream is never cut by it.
    raw.setTimeout(this.settings.heartbeatMs + this.settings.slowConsumerMs, () => raw.destroy());
    raw.writeHead(200, { ...SSE_HEADERS, 'x-request-id': String(request.id) });
    try {
      await streamFeed(raw, this.feed, start, filter, this.settings, abort.signal);
    } catch (e) {
      request.log.error({ err: e }, 'event stream failed');
    }
  }
}
