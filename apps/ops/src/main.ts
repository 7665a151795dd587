import { Command } from 'commander';
import { ConfigError } from '@dob/runtime';
import { registerClusterCommands } from './commands/cluster.command';
import { registerDataDirCommands } from './commands/data-dir.command';
import { registerEventCommands } from './commands/events.command';
import { registerFeaturedCommands } from './commands/featured.command';
import { registerKafkaCommands } from './commands/kafka.command';
import { registerKeyCommands } from './commands/keys.command';
import { registerPoolCommands } from './commands/pools.command';
import { registerProjectionCommands } from './commands/projections.command';
import { OpsError } from './ops-context';

/**
 * Operator CLI: `npm run ops -- projections status | rebuild <name...>|--all | reset <name> | retry <name>`, `events stats`,
 * `featured set <address> --network <id> --reason <text> [--position <n>] | clear <address> --network <id>`,
 * `keys set-rate-limit <keyId> <rpm>`, `data-dir status | unlock [--force]`, `pools register <address> --network <id> --name … --ticker … --access-type …
 * --distribution-type … [--apr …] [--max-participants …] [--token …]`, `kafka status | replay --from <position|beginning>
 * [--to <position>]`, `cluster status` (who owns which leased work).
 * Connects via DATABASE_URL (PostgreSQL) or DATA_DIR (embedded PGlite, default ./.data); when a running `npm start`
 * holds DATA_DIR, the projection and kafka commands ask it through its admin endpoint (operations.ts). Projections come from
 * the registry in libs/projections, so new projections appear here without CLI changes; new command groups are
 * one `register…(program)` line below.
 */
export function buildOpsProgram(): Command {
  const program = new Command('ops').description('DobProtocol agent backend operations').showHelpAfterError();
  registerProjectionCommands(program);
  registerEventCommands(program);
  registerFeaturedCommands(program);
  registerKeyCommands(program);
  registerPoolCommands(program);
  registerKafkaCommands(program);
  registerDataDirCommands(program);
  registerClusterCommands(program);
  return program;
}

if (require.main === module) {
  buildOpsProgram()
    .parseAsync(process.argv)
    .catch((e: unknown) => {
      const known = e instanceof OpsError || e instanceof ConfigError;
      console.error(known ? (e as Error).message : e instanceof Error ? `error: ${e.message}` : e);
      process.exit(1);
    });
}
