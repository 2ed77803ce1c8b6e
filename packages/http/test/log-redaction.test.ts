import { redactUrl } from '../src/log-redaction';

describe('redactUrl', () => {
  it('masks e-mails and cuts callbacks to their origin', () => {
    const url = '/x?address=k1.abc&email=jane.doe%40shop.io&callback=https%3A%2F%2Fshop.io%2Fipn%3Fsecret%3Ds3cr3t';
    const redacted = redactUrl(url);
    expect(redacted).not.toContain('jane.doe');
    expect(redacted).not.toContain('s3cr3t');
    expect(decodeURIComponent(redacted)).toContain('j***@shop.io');
    expect(decodeURIComponent(redacted)).toContain('https://shop.io/…');
    expect(redacted).toContain('address=k1.abc');
  });
  it('keeps only the first characters of an ipn_token', () => {
    const redacted = redactUrl('/control/payment-status.php?ipn_token=IJM9GLtXq0m1cS3aZl9m4b8wYpV2Rr7o');
    expect(redacted).not.toContain('q0m1cS3aZl9m4b8wYpV2Rr7o');
    expect(decodeURIComponent(redacted)).toContain('ipn_token=IJM9GL…');
  });
  it('leaves URLs without sensitive parameters alone', () => {
    expect(redactUrl('/healthz')).toBe('/healthz');
    expect(redactUrl('/x?a=1&b=2')).toBe('/x?a=1&b=2');
  });
});
