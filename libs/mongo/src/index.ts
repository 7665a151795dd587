export * from './capabilities';
export * from './mongo-database';
export * from './sortable-values';
export * from './connection-errors';
