export * from './rate-reader';
export * from './rate-source';
export * from './cached-rate-reader';
export * from './create-rate-reader';
export * from './sources/ecb';
export * from './sources/open-er-api';
export * from './sources/file';
export * from './rate-metrics';
