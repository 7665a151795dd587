import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { composeApiDependencies, startApi, type ApiCompositionOptions, type HttpLimits } from '@dob/api-http';
import type { AppContext, Started } from './app-context';

export interface ApiOptions extends Omit<ApiCompositionOptions, 'storage' | 'health'> {
  /** 0 picks a free one (see `port` of the result). */
  readonly port: number;
  /** Timeouts, connections per client, trusted proxies (apiHttpSettings of the configuration). */
  readonly http?: HttpLimits;
  /** Bearer token of GET /metrics on the API port; unset = not served there. */
  readonly metricsToken?: string;
  /** No request logs (tests). */
  readonly quiet?: boolean;
}

/**
 * The Agent API: what it serves composed over the context's storage (auth, read models, trading, the given webhook
 * service), then the Nest app listening. Composed by `npm run start:api` and `npm start`.
 */
export async function startApiApp(c: AppContext, o: ApiOptions): Promise<Started & { readonly app: NestFastifyApplication; readonly port: number }> {
  const { port, http, metricsToken, quiet, ...parts } = o;
  const composed = await composeApiDependencies({ ...parts, storage: c.storage, health: c.health });
  try {
    const app = await startApi(composed.deps, { port, log: quiet ? undefined : c.log, metrics: c.metrics, metricsToken, http });
    const address = app.getHttpServer().address();
    return {
      app,
      port: typeof address === 'object' && address ? address.port : port,
      stop: async () => {
        await app.close();
        await composed.close();
      },
    };
  } catch (e) {
    await composed.close();
    throw e;
  }
}
