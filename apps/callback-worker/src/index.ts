export { startCallbackWorker, type CallbackWorkerDeps } from './app';
export { loadCallbackWorkerConfig, callbackWorkerSettings, type CallbackWorkerConfig } from './config';
