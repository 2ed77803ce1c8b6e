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
  it('leaves URLs without sensitive parameters alone', () => {
    expect(redactUrl('/healthz')).toBe('/healthz');
    expect(redactUrl('/x?a=1&b=2')).toBe('/x?a=1&b=2');
  });
});
