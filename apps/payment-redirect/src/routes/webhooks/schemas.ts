import { Type } from '@sinclair/typebox';

export const webhookParams = Type.Object({
  provider: Type.String({ pattern: '^[a-z0-9]{2,32}$', description: 'provider id, as in Process Payment' }),
});
