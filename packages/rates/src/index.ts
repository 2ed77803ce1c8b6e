export * from './rate-reader';
