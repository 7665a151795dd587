export * from './app-context';
export * from './indexer.composition';
export * from './notifier.composition';
export * from './projector.composition';
export * from './relay.composition';
export * from './api.composition';
export * from './chain-networks';
