import { AppError } from '@dob/domain';
import { deliveryHeaders } from '../signing/delivery-signatures';
import type { WebhookSender } from '../delivery/https-sender';
import { newWebhookId, testDeliveryId } from '../ids';
import type { SecretBox } from '../secrets/secret-box';
import { UnsafeDestinationError, type DestinationGuard } from '../ssrf/destination-guard';
import type { DeliveryView, SqlDeliveryQueue } from '../store/delivery-queue';
import type { SqlWebhookStore, StoredWebhook, WebhookCaller, WebhookOwner, WebhookPatch } from '../store/webhook-store';
import { isWebhookEventName, MAX_WEBHOOKS_PER_KEY, MAX_WEBHOOKS_PER_WALLET, MIN_SECRET_LENGTH, WEBHOOK_EVENTS, type WebhookEventName } from '../webhook-events';

export interface WebhookView {
  readonly id: string;
  readonly url: string;
  readonly events: WebhookEventName[];
  readonly is_active: boolean;
  readonly failure_count: number;
  readonly last_triggered_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  /** The API key that registered it was revoked: inactive for good; the wallet's other keys may delete it. */
  readonly key_revoked: boolean;
}

export interface TestSendResult {
  readonly webhook_id: string;
  readonly test_event_sent: boolean;
  readonly delivery_status: 'success' | 'failed';
  readonly response_code: number;
  readonly response_time_ms: number;
}

export interface WebhookServiceDeps {
  readonly webhooks: SqlWebhookStore;
  readonly queue: SqlDeliveryQueue;
  readonly secrets: SecretBox;
  readonly guard: DestinationGuard;
  readonly sender: WebhookSender;
  readonly now?: () => Date;
}

/**
 * Webhook management for one API key (the owner). Every input is checked here, so any transport gets the same
 * rules; a webhook of another key is reported exactly like an unknown one (404), so ids do not leak — except the
 * webhooks of the wallet's revoked keys, which the wallet's other keys list and delete (nobody else can).
 */
export class WebhookService {
  private readonly now: () => Date;

  constructor(private readonly deps: WebhookServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async register(owner: WebhookOwner, body: unknown): Promise<WebhookView> {
    const input = asObject(body);
    const url = await this.checkUrl(input.url, true);
    const events = checkEvents(input.events, true);
    const secret = checkSecret(input.secret, true);
    const id = newWebhookId();
    const stored = await this.deps.webhooks.insert(
      { id, ownerKeyId: owner.keyId, ownerWallet: owner.wallet, url: url!, events: events!, secretSealed: this.deps.secrets.seal(secret!, id) },
      { perKey: MAX_WEBHOOKS_PER_KEY, perWallet: MAX_WEBHOOKS_PER_WALLET },
    );
    if (stored === 'key-limit') {
      throw AppError.validation(`an API key may register at most ${MAX_WEBHOOKS_PER_KEY} webhooks; delete one first`, {
        limit: MAX_WEBHOOKS_PER_KEY,
      });
    }
    if (stored === 'wallet-limit') {
      throw AppError.validation(`a wallet may hold at most ${MAX_WEBHOOKS_PER_WALLET} webhooks over all its keys, revoked keys' included; delete one first`, {
        limit: MAX_WEBHOOKS_PER_WALLET,
      });
    }
    return view(stored);
  }

  async list(caller: WebhookCaller): Promise<WebhookView[]> {
    return (await this.deps.webhooks.listVisibleTo(caller)).map(view);
  }

  async update(ownerKeyId: string, id: string, body: unknown): Promise<WebhookView> {
    const input = asObject(body);
    await this.owned(ownerKeyId, id);
    const patch: { -readonly [K in keyof WebhookPatch]: WebhookPatch[K] } = {};
    if (input.url !== undefined) patch.url = await this.checkUrl(input.url, false);
    if (input.events !== undefined) patch.events = checkEvents(input.events, false);
    if (input.secret !== undefined) patch.secretSealed = this.deps.secrets.seal(checkSecret(input.secret, false)!, id);
    if (input.is_active !== undefined) {
      if (typeof input.is_active !== 'boolean') throw AppError.validation('is_active must be a boolean');
      patch.isActive = input.is_active;
    }
    const updated = await this.deps.webhooks.update(ownerKeyId, id, patch);
    if (!updated) throw notFound();
    return view(updated);
  }

  async remove(caller: WebhookCaller, id: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.deps.webhooks.delete(caller, id))) throw notFound();
    return { id, deleted: true };
  }

  /** Sends the `test` event's body now (not queued, not retried, does not touch failure_count). */
  async sendTest(ownerKeyId: string, id: string): Promise<TestSendResult> {
    const hook = await this.owned(ownerKeyId, id);
    const at = this.now();
    const body = JSON.stringify({
      event: 'test',
      timestamp: at.toISOString(),
      webhook_id: hook.id,
      data: { message: 'This is a test webhook delivery.' },
    });
    const headers = deliveryHeaders({
      secret: this.deps.secrets.open(hook.secretSealed, hook.id),
      event: 'test',
      deliveryId: testDeliveryId(),
      body,
      timestampSeconds: Math.floor(at.getTime() / 1000),
    });
    const r = await this.deps.sender.send(hook.url, headers, body);
    return {
      webhook_id: hook.id,
      test_event_sent: r.responseCode !== null,
      delivery_status: r.ok ? 'success' : 'failed',
      response_code: r.responseCode ?? 0,
      response_time_ms: r.durationMs,
    };
  }

  async deliveries(ownerKeyId: string, id: string, page: number, limit: number): Promise<{ deliveries: Record<string, unknown>[]; total: number }> {
    await this.owned(ownerKeyId, id);
    const r = await this.deps.queue.listForWebhook(id, page, limit);
    return { total: r.total, deliveries: r.deliveries.map(deliveryView) };
  }

  async redeliver(ownerKeyId: string, id: string, deliveryId: string): Promise<{ delivery_id: string; webhook_id: string; status: 'pending' }> {
    const hook = await this.owned(ownerKeyId, id);
    if (!hook.isActive) throw AppError.conflict('the webhook is inactive; re-enable it (is_active true) before redelivering');
    if (!(await this.deps.queue.redeliver(id, deliveryId, this.now()))) throw AppError.notFound(`delivery ${deliveryId} not found`);
    return { delivery_id: deliveryId, webhook_id: id, status: 'pending' };
  }

  private async owned(ownerKeyId: string, id: string): Promise<StoredWebhook> {
    const hook = await this.deps.webhooks.get(id);
    if (!hook || hook.ownerKeyId !== ownerKeyId) throw notFound();
    return hook;
  }

  private async checkUrl(value: unknown, required: boolean): Promise<string | undefined> {
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value.trim() === '') throw AppError.validation('url is required and must be a string');
    if (value.length > 2048) throw AppError.validation('url must be at most 2048 characters');
    try {
      await this.deps.guard.checkUrl(value.trim());
      return value.trim();
    } catch (e) {
      if (e instanceof UnsafeDestinationError) throw AppError.validation(e.publicMessage, { field: 'url' });
      throw e;
    }
  }
}

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw AppError.validation('request body must be a JSON object');
  return body as Record<string, unknown>;
}

function checkEvents(value: unknown, required: boolean): WebhookEventName[] | undefined {
  if (value === undefined && !required) return undefined;
  if (!Array.isArray(value) || value.length === 0) throw AppError.validation('events must be a non-empty array of event names');
  const unknown = value.filter((v) => !isWebhookEventName(v));
  if (unknown.length > 0) {
    throw AppError.validation(`unknown event ${unknown.map((u) => JSON.stringify(u)).join(', ')}; allowed: ${WEBHOOK_EVENTS.join(', ')}`, {
      field: 'events',
    });
  }
  return [...new Set(value as WebhookEventName[])];
}

function checkSecret(value: unknown, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string') throw AppError.validation('secret is required and must be a string');
  if (value.length < MIN_SECRET_LENGTH) throw AppError.validation(`secret must be at least ${MIN_SECRET_LENGTH} characters`, { field: 'secret' });
  if (value.length > 512) throw AppError.validation('secret must be at most 512 characters');
  return value;
}

function notFound(): AppError {
  return AppError.notFound('webhook not found');
}

function view(w: StoredWebhook): WebhookView {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    is_active: w.isActive,
    failure_count: w.failureCount,
    last_triggered_at: w.lastTriggeredAt?.toISOString() ?? null,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
    key_revoked: w.keyRevokedAt !== null,
  };
}

function deliveryView(d: DeliveryView): Record<string, unknown> {
  return {
    delivery_id: d.id,
    event: d.eventType,
    event_id: d.eventId,
    status: d.status,
    attempt_count: d.attempts.length,
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      attempted_at: a.attemptedAt.toISOString(),
      response_code: a.responseCode,
      duration_ms: a.durationMs,
      error: a.error,
    })),
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
  };
}
