import { withDirective } from '@gateway/http';

/**
 * The page's Content-Security-Policy with one more image origin (the merchant's logo), every
 * other directive exactly as the host's policy has it.
 */
export function allowImageOrigin(policy: string, origin: string): string {
  return withDirective(policy, 'img-src', (directive = "img-src 'self' data:") => `${directive} ${origin}`);
}
