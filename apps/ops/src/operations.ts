import { kafkaRelaySettings, kafkaRelayStatus, replayForOperator } from '@dob/kafka-relay';
import { READ_MODEL_REBUILD_GROUPS } from '@dob/read-models';
import { readAdminEndpoint } from '@dob/runtime';
import { connectToRunningSystem } from './admin-client';
import { DataFolderInUseError, OpsError, withOpsContext, type OpsContext } from './ops-context';
import type { Operations } from './operations.port';

function localOperations({ runner, storage, config }: OpsContext): Operations {
  return {
    projectionStatus: () => runner.status(),
    rebuildAll: (names, onProgress, onSwitched) =>
      runner.rebuildAll(names, {
        groups: READ_MODEL_REBUILD_GROUPS,
        onProgress: (name, { applied, total }) => onProgress(name, { applied, total }),
        onSwitched,
      }),
    reset: (name) => runner.reset(name),
    retry: (name) => runner.retry(name),
    kafkaStatus: () => kafkaRelayStatus(storage.db, storage.eventStore, config.KAFKA_TOPIC_PREFIX),
    kafkaReplay: (after, to, onProgress) => {
      const settings = kafkaRelaySettings(config);
      if (!settings) throw new OpsError('KAFKA_BROKERS is not set: replay needs the brokers to publish to');
      return replayForOperator({ db: storage.db, events: storage.eventStore, settings, after, ...(to ? { to } : {}), onProgress });
    },
  };
}

/** Runs fn on the CLI's own connection, or — when a running system holds the data folder — through that system. */
export async function withOperations<T>(fn: (ops: Operations) => Promise<T>): Promise<T> {
  try {
    return await withOpsContext((ctx) => fn(localOperations(ctx)));
  } catch (e) {
    if (!(e instanceof DataFolderInUseError)) throw e;
    let endpoint;
    try {
      endpoint = readAdminEndpoint(e.dataDir);
    } catch (unreadable) {
      throw new OpsError(
        `${e.message}\nThe running system's admin token (${e.dataDir}/admin.json) cannot be read: ${(unreadable as Error).message} ` +
          `(it is readable by the folder's owner only: run the CLI as that user)`,
      );
    }
    if (!endpoint) throw e; // a system from before the admin endpoint, or one still starting
    return fn(connectToRunningSystem(endpoint));
  }
}
