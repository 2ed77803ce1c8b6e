/**
 * The API host for a provider whose quotes a test does not exercise: a loopback port nothing listens
 * on, so Process Payment's quote call is refused at once and the provider's rows are estimates. Left
 * unset, the adapter would ask the provider's real host, and no test reaches the internet.
 */
export const NO_QUOTE_API = 'http://127.0.0.1:1';
