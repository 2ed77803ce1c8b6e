import { RECOVERY_LINK_LIFETIME_MS, type RecoveryMessageFacts } from '@gateway/domain';

/** The recovery e-mail's words: what the mailer sends (the plain part and the HTML part say the same). */
export interface RecoveryMessageView {
  subject: string;
  text: string;
  html: string;
}

const LINK_DAYS = RECOVERY_LINK_LIFETIME_MS / 86_400_000;

/**
 * The view model of the one recovery e-mail: the facts (recovery-email.ts) in plain words. What
 * happened, that the order is still open, and the link back to the same order: its other
 * providers after a decline, its checkout after an abandoned one. No shop data, no amounts in
 * USDC, no addresses: the customer paid in their currency.
 */
export function recoveryMessageView(facts: RecoveryMessageFacts): RecoveryMessageView {
  const amount = `${facts.amount} ${facts.currency}`;
  const declined = facts.trigger === 'declined';
  const subject = declined ? `Your payment of ${amount} did not go through` : `Your payment of ${amount} is not finished`;
  const happened = declined
    ? [
        `${facts.providerName} did not complete your payment of ${amount}.`,
        ...(facts.reason ? [`${facts.providerName} said: ${facts.reason}`] : []),
      ]
    : [`You started paying ${amount} with ${facts.providerName}, but the payment was not finished.`];
  const open = 'No money reached the shop for this order, so it is still open.';
  const next = declined
    ? 'You can finish the same order with another payment provider, without going back to the shop:'
    : 'You can continue the same order where you left off:';
  const action = declined ? 'Choose another way to pay' : 'Continue your payment';
  const after = [
    `The link is for you alone and works for ${LINK_DAYS} days.`,
    'If you have paid already or no longer want to buy, ignore this message: it is the only one you will get about this order.',
  ];

  const text = [happened.join(' '), open, `${next}\n${facts.link}`, after.join(' ')].join('\n\n');
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;line-height:1.5;color:#1a1a1a;max-width:36rem;margin:0 auto;padding:1rem">',
    ...happened.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p>${escapeHtml(open)}</p>`,
    `<p>${escapeHtml(next)}</p>`,
    `<p><a href="${escapeHtml(facts.link)}" style="display:inline-block;padding:.75rem 1.25rem;background:#1a56db;color:#fff;` +
      `text-decoration:none;border-radius:.375rem">${escapeHtml(action)}</a></p>`,
    `<p style="font-size:.875rem;color:#555">${escapeHtml(after.join(' '))}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
