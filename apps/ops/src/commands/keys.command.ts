import type { Command } from 'commander';
import { createSqlAuth } from '@dob/auth';
import { AppError } from '@dob/domain';
import { OpsError, withOpsContext } from '../ops-context';
import { parseInteger } from './arguments';

/**
 * API key administration. `set-rate-limit` sets a key's tier (spec Limits: default 60 rpm, enhanced 300, enterprise
 * 1000 and above) through the wallet aggregate (`WalletKeyService.setRateLimit`), so the change is an event on the
 * wallet's stream and the guard's index follows before the command returns.
 */
export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('API key administration');

  keys
    .command('set-rate-limit <keyId> <rpm>')
    .description("set a key's requests per minute: 60 (default), 300 (enhanced) or 1000+ (enterprise)")
    .action(async (keyId: string, rpmText: string) => {
      if (!/^ak_[0-9A-Za-z]+$/.test(keyId)) throw new OpsError(`keyId must look like ak_…, got "${keyId}"`);
      const rpm = parseInteger(rpmText, 'rpm', 1);
      await withOpsContext(async ({ storage }) => {
        // The index moves the key epoch in the same statement, and the command returns only after every API
        // instance's lease on the old epoch ran out: their next request uses the new tier (docs/auth.md "Key cache").
        const auth = await createSqlAuth(storage.db, storage.eventStore);
        try {
          const key = await auth.keys.setRateLimit(keyId, rpm);
          console.log(`${key.keyId}: rate_limit_rpm = ${key.rateLimitRpm}`);
        } catch (e) {
          // Domain refusals (unknown key, a tier that does not exist) are operator errors: one line, exit 1.
          if (e instanceof AppError) throw new OpsError(`${e.code}: ${e.message}`);
          throw e;
        } finally {
          await auth.close();
        }
      });
    });
}
