export * from './logger';
export * from './metrics';
export * from './instrument';
export * from './metrics-server';
export * from './app-observability';
export * from './dependency-watch';
