import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openReadModelStorage } from '@dob/read-models';
import { HealthRegistry, loadAppConfig, openStorage, systemEventCatalog } from '@dob/runtime';
import { createWebhookComponents, webhookSettings } from '@dob/webhooks';
import { API_PREFIX, createApiApp } from '../bootstrap';
import { composeApiDependencies } from '../compose-api-dependencies';

/** An address nothing listens on: composing trading contacts no RPC, and no request is ever routed there. */
const NO_RPC = 'http://127.0.0.1:9/never-contacted';

/**
 * The OpenAPI document exactly as the API serves it at `/api/agent/openapi.json`, with no chain and no server:
 * the real composition (auth, read models, trading, webhooks — every controller mounted) over a throwaway
 * embedded database, asked through Fastify's in-process `inject` (no port is opened). `npm run client:generate`
 * builds the agent client's types from it, so they come from the same DTOs and decorators the server runs.
 */
export async function renderServedOpenApiDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dob-openapi-'));
  const storage = await openStorage({ dataDir, catalog: systemEventCatalog() });
  try {
    const webhooks = await createWebhookComponents({ db: storage.db, ...webhookSettings(loadAppConfig('all', {}), dataDir) });
    const readModels = await openReadModelStorage({ db: storage.db });
    const composed = await composeApiDependencies({
      storage,
      readModels,
      health: new HealthRegistry(),
      networks: [
        { id: 9, rpcUrl: NO_RPC, passphrase: 'Test SDF Network ; September 2015', explorerUrl: 'https://stellar.expert/explorer/testnet', tokens: [] },
      ],
      tokens: [],
      webhooks: webhooks.service,
      jwtSecret: 'openapi-document-only',
    });
    const app = await createApiApp(composed.deps, { logger: false });
    try {
      await app.init();
      const response = await app.inject({ method: 'GET', url: `/${API_PREFIX}/openapi.json` });
      if (response.statusCode !== 200) throw new Error(`openapi.json answered ${response.statusCode}: ${response.body}`);
      return response.json();
    } finally {
      await app.close();
      await composed.close();
      await webhooks.close();
      await readModels.close();
    }
  } finally {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
