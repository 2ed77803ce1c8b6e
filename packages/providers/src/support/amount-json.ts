import { ProviderCheckoutError } from '../provider-contract';

const DECIMAL_AMOUNT = /^\d{1,12}\.\d{2}$/;

/**
 * The order's amount, checked to be a decimal with two places before a provider's call carries it
 * as a JSON number (`call` names that call in the refusal: "Wert session").
 */
export function decimalAmount(call: string, amount: string): string {
  if (!DECIMAL_AMOUNT.test(amount)) {
    throw new ProviderCheckoutError(`${call} not sent: the amount ${amount.slice(0, 20)} is not a decimal`, 'refused');
  }
  return amount;
}

/**
 * The JSON of `fields` with the amount as a JSON number, first or last: written from the checked
 * decimal string itself, so no binary float rounds it. `amount` must already be a JSON number.
 */
export function jsonWithAmount(fields: Readonly<Record<string, unknown>>, name: string, amount: string, place: 'first' | 'last'): string {
  const others = JSON.stringify(fields).slice(1, -1);
  const member = `${JSON.stringify(name)}:${amount}`;
  const members = place === 'first' ? [member, others] : [others, member];
  return `{${members.filter((text) => text !== '').join(',')}}`;
}
