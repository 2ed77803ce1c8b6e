import { securityHeaders, withDirective } from '../src/plugins/security-headers';

describe('securityHeaders', () => {
  it("forbids framing and sets helmet's hardening headers", () => {
    const headers = securityHeaders();
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['x-powered-by']).toBeUndefined();
  });
});

describe('withDirective', () => {
  const policy = securityHeaders()['content-security-policy']!;

  it("rewrites one directive in place and keeps every other as the host's policy has it", () => {
    const rewritten = withDirective(policy, 'form-action', (directive) => `${directive} https://pay.provider.io`);
    expect(rewritten).toBe(policy.replace("form-action 'self'", "form-action 'self' https://pay.provider.io"));
  });

  it('adds a directive the policy lacks at the end, and drops a repeated one', () => {
    expect(withDirective("default-src 'self'", 'img-src', (directive) => directive ?? "img-src 'self'")).toBe(
      "default-src 'self';img-src 'self'",
    );
    expect(withDirective("form-action 'self'; default-src 'self';FORM-ACTION *", 'form-action', () => 'form-action https://a.io')).toBe(
      "form-action https://a.io;default-src 'self'",
    );
  });
});
