export * from './errors/app-error';
export * from './events/catalog';
