import type { ProviderPaymentStatus } from '@gateway/domain';

/** The receipt's first step, while the provider has not said more. */
export const WAITING_FOR_PROVIDER = 'Waiting for the provider';

/** What the page says while no USDC has arrived: the provider's status, in the customer's words. */
export interface ProviderStatusWords {
  providerLine: string;
  headline: string;
  message: string;
  stepLabel: string;
  stepDetail: string;
}

export function providerStatusWords(status: ProviderPaymentStatus | null, name: string): ProviderStatusWords {
  const arrivesBySelf = `This page updates by itself once ${name} delivers the payment. It usually takes under a minute after you pay.`;
  switch (status) {
    case null:
      return {
        providerLine: `Paying with ${name}`,
        headline: 'Waiting for the payment provider',
        message: arrivesBySelf,
        stepLabel: WAITING_FOR_PROVIDER,
        stepDetail: `Finish paying on ${name}'s page`,
      };
    case 'pending':
      return {
        providerLine: `Paying with ${name}`,
        headline: `${name} is processing your payment`,
        message: arrivesBySelf,
        stepLabel: WAITING_FOR_PROVIDER,
        stepDetail: `${name} is checking the payment`,
      };
    case 'charged':
      return {
        providerLine: `Paid with ${name}`,
        headline: `${name} charged your card`,
        message:
          `${name} is buying the USDC and sending it to the shop. This page updates by itself once it arrives; nothing else ` +
          `is needed from you.`,
        stepLabel: 'Card payment accepted',
        stepDetail: `${name} charged the card; the USDC is on its way`,
      };
    case 'paid':
      return {
        providerLine: `Paid with ${name}`,
        headline: `${name} took your payment`,
        message: `${name} says it sent the USDC to the shop. This page updates by itself once it arrives; nothing else is needed from you.`,
        stepLabel: 'Card payment accepted',
        stepDetail: `${name} says it sent the USDC; it has not arrived yet`,
      };
    case 'declined':
      return {
        providerLine: `Tried with ${name}`,
        headline: 'Your card was declined',
        message: `${name} declined the card. Nothing was charged.`,
        stepLabel: 'Card payment declined',
        stepDetail: 'The card was not charged',
      };
    case 'failed':
      return {
        providerLine: `Tried with ${name}`,
        headline: 'The payment did not go through',
        message: `${name} did not complete the payment and sent no USDC. If your card was charged, ${name} returns the money.`,
        stepLabel: 'Payment not completed',
        stepDetail: 'No USDC was sent',
      };
    default:
      return unworded(status);
  }
}

function unworded(status: never): never {
  throw new Error(`provider status ${String(status)} has no words on the receipt page`);
}
