import { MockAgent } from 'undici';
import { createProviderHttpClient, type ProviderHttpClient } from '../../src/support/provider-http-client';

const opened: MockAgent[] = [];
afterAll(async () => Promise.all(opened.splice(0).map(async (agent) => agent.close())));

/**
 * A provider's API behind undici's MockAgent for one test file: nothing leaves for the network
 * (disableNetConnect), the agent is closed after the file's tests, and `http` is the adapters'
 * client over it with one attempt (a test plays each answer itself).
 */
export function mockProviderApi(): { agent: MockAgent; http: ProviderHttpClient } {
  const agent = new MockAgent();
  agent.disableNetConnect();
  opened.push(agent);
  return { agent, http: createProviderHttpClient({ dispatcher: agent, maxAttempts: 1 }) };
}
