import { DECLINE_KINDS, declineKindOfReport, isDeclineKind, type ProviderPaymentStatus } from '../src';

describe('declineKindOfReport', () => {
  it.each(['pending', 'charged', 'paid'] as ProviderPaymentStatus[])('%s carries no kind, whatever the adapter read', (status) => {
    expect(declineKindOfReport(status)).toBeUndefined();
    expect(declineKindOfReport(status, 'card_refused')).toBeUndefined();
  });

  it.each(['declined', 'failed'] as ProviderPaymentStatus[])('%s carries the documented kind, else other', (status) => {
    for (const kind of DECLINE_KINDS) expect(declineKindOfReport(status, kind)).toBe(kind);
    expect(declineKindOfReport(status)).toBe('other');
  });
});

describe('isDeclineKind', () => {
  it('knows the kinds and nothing else', () => {
    for (const kind of DECLINE_KINDS) expect(isDeclineKind(kind)).toBe(true);
    expect(isDeclineKind('card_declined')).toBe(false);
    expect(isDeclineKind('')).toBe(false);
  });
});
