export * from './errors/app-error';
export * from './events/catalog';
export * from './events/index';
