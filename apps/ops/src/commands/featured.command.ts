import type { Command } from 'commander';
import { OpsError, withOpsContext } from '../ops-context';
import { parseAddress, parseInteger } from './arguments';

/**
 * Operator picks for `GET /pools/featured` (shown before the rule-based picks, lower position first). They are
 * service-owned configuration beside the read models (SQL table or MongoDB collection), never rebuilt from events.
 */
export function registerFeaturedCommands(program: Command): void {
  const featured = program.command('featured').description('operator-chosen featured pools');

  featured
    .command('set <address>')
    .description('feature a pool (or change its reason/position)')
    .requiredOption('--network <id>', 'network id (e.g. 9 = Stellar Testnet)')
    .requiredOption('--reason <text>', 'featured_reason shown to agents')
    .option('--position <n>', 'order among operator picks, lower first', '0')
    .action(async (address: string, opts: { network: string; reason: string; position: string }) => {
      const networkId = parseInteger(opts.network, '--network', 0);
      const position = parseInteger(opts.position, '--position', 0);
      const reason = opts.reason.trim();
      if (!reason) throw new OpsError('--reason must not be empty');
      if (reason.length > 200) throw new OpsError('--reason must be at most 200 characters');
      const pool = parseAddress(address, 'C', 'pool address');
      await withOpsContext(async ({ readModels }) => {
        await readModels.setFeatured({ networkId, address: pool, reason, position });
        console.log(`featured ${pool} on network ${networkId} at position ${position}: ${reason}`);
      });
    });

  featured
    .command('clear <address>')
    .description('stop featuring a pool by operator choice (rule-based picks still apply)')
    .requiredOption('--network <id>', 'network id')
    .action(async (address: string, opts: { network: string }) => {
      const networkId = parseInteger(opts.network, '--network', 0);
      const pool = parseAddress(address, 'C', 'pool address');
      await withOpsContext(async ({ readModels }) => {
        await readModels.clearFeatured(networkId, pool);
        console.log(`cleared featured ${pool} on network ${networkId}`);
      });
    });
}
