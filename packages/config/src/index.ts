export * from './load-config';
export * from './settings';
export * from './parse-settings';
export * from './app-process';
export * from './shared-settings';
