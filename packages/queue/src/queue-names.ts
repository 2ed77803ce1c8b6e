/** Every BullMQ queue of the gateway. Producers and consumers import these, never a string. */
export const QUEUE_NAMES = {
  settlement: 'settlement',
  callbacks: 'callbacks',
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
