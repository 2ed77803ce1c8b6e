import { Type } from '@sinclair/typebox';

export const webhookParams = Type.Object({
  provider: Type.String({ pattern: '^[a-z0-9]{2,32}$', description: 'provider id, as in Process Payment' }),
});

export const webhookAccepted = Type.Object({
  status: Type.Literal('success'),
  outcome: Type.Union([Type.Literal('updated'), Type.Literal('unchanged')], {
    description: 'unchanged: the payment already had a later status (a late or repeated webhook)',
  }),
});
