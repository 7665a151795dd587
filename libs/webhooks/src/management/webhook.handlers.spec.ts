import { AppError } from '@dob/domain';
import {
  ListWebhooksHandler,
  ListWebhooksQuery,
  RedeliverWebhookCommand,
  RedeliverWebhookHandler,
  RegisterWebhookCommand,
  RegisterWebhookHandler,
  RemoveWebhookCommand,
  RemoveWebhookHandler,
  SendTestWebhookCommand,
  SendTestWebhookHandler,
  UpdateWebhookCommand,
  UpdateWebhookHandler,
  WebhookDeliveriesHandler,
  WebhookDeliveriesQuery,
} from './webhook.handlers';
import type { WebhookService } from './webhook-service';

/** A WebhookService that records each call and answers with the method's name, or refuses with `failure`. */
function fakeWebhooks(failure?: Error) {
  const calls: unknown[][] = [];
  const methods = ['register', 'update', 'remove', 'sendTest', 'redeliver', 'list', 'deliveries'];
  const service = Object.fromEntries(
    methods.map((name) => [
      name,
      (...args: unknown[]) => {
        calls.push([name, ...args]);
        return failure ? Promise.reject(failure) : Promise.resolve({ answeredBy: name });
      },
    ]),
  ) as unknown as WebhookService;
  return { service, calls };
}

describe('webhook command and query handlers', () => {
  const body = { url: 'https://example.com/hook', events: ['sale'] };
  const caller = { keyId: 'key-1', wallet: 'G-wallet' };
  const cases: [string, (s: WebhookService) => Promise<unknown>, unknown[]][] = [
    ['register', (s) => new RegisterWebhookHandler(s).execute(new RegisterWebhookCommand(caller, body)), [caller, body]],
    ['update', (s) => new UpdateWebhookHandler(s).execute(new UpdateWebhookCommand('key-1', 'wh-1', body)), ['key-1', 'wh-1', body]],
    ['remove', (s) => new RemoveWebhookHandler(s).execute(new RemoveWebhookCommand(caller, 'wh-1')), [caller, 'wh-1']],
    ['sendTest', (s) => new SendTestWebhookHandler(s).execute(new SendTestWebhookCommand('key-1', 'wh-1')), ['key-1', 'wh-1']],
    ['redeliver', (s) => new RedeliverWebhookHandler(s).execute(new RedeliverWebhookCommand('key-1', 'wh-1', 'dl-1')), ['key-1', 'wh-1', 'dl-1']],
    ['list', (s) => new ListWebhooksHandler(s).execute(new ListWebhooksQuery(caller)), [caller]],
    ['deliveries', (s) => new WebhookDeliveriesHandler(s).execute(new WebhookDeliveriesQuery('key-1', 'wh-1', 2, 10)), ['key-1', 'wh-1', 2, 10]],
  ];

  it.each(cases)('%s: scoped to the owning API key, the answer of WebhookService comes back', async (method, run, args) => {
    const { service, calls } = fakeWebhooks();
    await expect(run(service)).resolves.toEqual({ answeredBy: method });
    expect(calls).toEqual([[method, ...args]]);
  });

  it("a refusal (another key's webhook: NOT_FOUND) passes through unchanged", async () => {
    const refusal = AppError.notFound('Webhook not found');
    const { service } = fakeWebhooks(refusal);
    await expect(new RemoveWebhookHandler(service).execute(new RemoveWebhookCommand({ keyId: 'key-2', wallet: 'G-wallet' }, 'wh-1'))).rejects.toBe(refusal);
  });
});
