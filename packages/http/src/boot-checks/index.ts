// @gateway/http/boot-checks: what every app checks against the database before it serves or works,
// an entry of its own so the operator's commands run them without loading the HTTP server.
export * from './token-check';
export * from './hd-key-check';
export * from './server-requirements';
