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
  it("hides a payment's key whole: it acts on the payment (issue 35)", () => {
    const key = 'kxaJU4BcNpQ3SAuuq8gZoxfV4AhUmL-C8kXoxmhIIZA';
    const redacted = redactUrl(`/payment/6f1c2b9e-4d3a-4e8b-9a7c-2f5d8e1b3c40/checkout?key=${key}`);
    expect(redacted).not.toContain(key.slice(0, 6));
    expect(decodeURIComponent(redacted)).toBe('/payment/6f1c2b9e-4d3a-4e8b-9a7c-2f5d8e1b3c40/checkout?key=…');
  });
  it('leaves URLs without sensitive parameters alone', () => {
    expect(redactUrl('/healthz')).toBe('/healthz');
    expect(redactUrl('/x?a=1&b=2')).toBe('/x?a=1&b=2');
  });
});
