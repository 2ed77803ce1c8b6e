/**
 * The page's Content-Security-Policy with one more image origin (the merchant's logo), every
 * other directive exactly as the host's policy has it.
 */
export function allowImageOrigin(policy: string, origin: string): string {
  const directives = policy
    .split(';')
    .map((directive) => directive.trim())
    .filter(Boolean);
  const index = directives.findIndex((directive) => directive.split(/\s+/)[0]?.toLowerCase() === 'img-src');
  if (index === -1) return [...directives, `img-src 'self' data: ${origin}`].join(';');
  directives[index] = `${directives[index]} ${origin}`;
  return directives.join(';');
}
