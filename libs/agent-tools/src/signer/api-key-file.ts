import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { registerAgent, type AgentClient } from '@dobprotocol/agent-client';
import type { Keypair } from '@stellar/stellar-sdk';

/**
 * The local signer's API key, kept in a 0600 file so restarts reuse it (a wallet holds at most 10 active keys):
 * read when present, otherwise registered once (challenge signed locally, SEP-53) and written.
 */
export function apiKeyFromFile(client: AgentClient, keypair: Keypair, file: string, log: (line: string) => void): () => Promise<void> {
  let pending: Promise<void> | undefined;
  return () => {
    pending ??= (async () => {
      if (existsSync(file)) {
        client.setApiKey(readFileSync(file, 'utf8').trim());
        return;
      }
      const registered = await registerAgent(client, keypair, { label: 'mcp local signer', scopes: ['read', 'trade'] });
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${registered.apiKey}\n`, { mode: 0o600 });
      log(`registered ${keypair.publicKey()}: API key ${registered.keyPrefix}… stored in ${file}`);
    })().catch((e) => {
      pending = undefined;
      throw e;
    });
    return pending;
  };
}
