import fp from 'fastify-plugin';
import { MerchantCallbackRepository } from '@gateway/db/wallet-control';
import { CallbackResendService } from '../services/callback-resend-service';

declare module 'fastify' {
  interface FastifyInstance {
    callbackResendService: CallbackResendService;
  }
}

export const callbackResendService = fp(
  async (app) => {
    app.decorate('callbackResendService', new CallbackResendService(new MerchantCallbackRepository(app.pool)));
  },
  { name: 'callback-resend-service', dependencies: ['postgres'] },
);
